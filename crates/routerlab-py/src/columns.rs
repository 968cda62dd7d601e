//! Result columns handed to Python as Arrow buffers, which pyarrow wraps without a copy
//! (`pyarrow.Array.from_buffers`, in `routerlab.output.column`).
//!
//! A column of a million flows then costs one byte string, not a million Python objects; and
//! pyarrow, which imports pandas the first time it converts a Python list (0.45 s), never does,
//! so `routerlab run` does not pay for pandas unless a data frame is asked for.
//!
//! A column goes over as `(format, length, validity, values, offsets)`: the format names the
//! Arrow type (`f64`, `u64`, `u32`, `bool`, `str`), `validity` is the bitmap of non-null
//! values (None when none is null), `values` the little-endian values (bits for `bool`, UTF-8
//! bytes for `str`), and `offsets` the `str` values' 32-bit offsets (None otherwise).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A column being built.
#[derive(Default)]
pub struct Column {
    format: &'static str,
    len: usize,
    nulls: usize,
    validity: Vec<u8>,
    values: Vec<u8>,
    offsets: Vec<u8>,
}

/// A value a column can hold.
pub trait Value {
    const FORMAT: &'static str;
    /// Append the value's bytes (not its validity) as entry `c.len`.
    fn append(&self, c: &mut Column);
    /// What a null entry holds in the values (Arrow leaves it undefined; zero here).
    fn append_null(c: &mut Column);
}

/// Set bit `i` of a bitmap that holds bits `0..i` (least significant bit first, as Arrow's).
fn push_bit(bits: &mut Vec<u8>, i: usize, on: bool) {
    if i.is_multiple_of(8) {
        bits.push(0);
    }
    if on {
        bits[i / 8] |= 1 << (i % 8);
    }
}

macro_rules! little_endian {
    ($($t:ty => $format:literal),+) => {$(
        impl Value for $t {
            const FORMAT: &'static str = $format;
            fn append(&self, c: &mut Column) {
                c.values.extend_from_slice(&self.to_le_bytes());
            }
            fn append_null(c: &mut Column) {
                (0 as $t).append(c);
            }
        }
    )+};
}
little_endian!(f64 => "f64", u64 => "u64", u32 => "u32");

impl Value for bool {
    const FORMAT: &'static str = "bool";
    fn append(&self, c: &mut Column) {
        push_bit(&mut c.values, c.len, *self);
    }
    fn append_null(c: &mut Column) {
        false.append(c);
    }
}

impl Value for str {
    const FORMAT: &'static str = "str";
    fn append(&self, c: &mut Column) {
        c.values.extend_from_slice(self.as_bytes());
        let end = i32::try_from(c.values.len()).expect("a string column under 2 GiB");
        c.offsets.extend_from_slice(&end.to_le_bytes());
    }
    fn append_null(c: &mut Column) {
        "".append(c);
    }
}

impl Value for String {
    const FORMAT: &'static str = "str";
    fn append(&self, c: &mut Column) {
        self.as_str().append(c);
    }
    fn append_null(c: &mut Column) {
        str::append_null(c);
    }
}

impl<T: Value + ?Sized> Value for &T {
    const FORMAT: &'static str = T::FORMAT;
    fn append(&self, c: &mut Column) {
        (**self).append(c);
    }
    fn append_null(c: &mut Column) {
        T::append_null(c);
    }
}

impl<T: Value> Value for Option<T> {
    const FORMAT: &'static str = T::FORMAT;
    fn append(&self, c: &mut Column) {
        match self {
            Some(v) => v.append(c),
            None => {
                T::append_null(c);
                c.nulls += 1;
            }
        }
        // The entry's validity (the column counts it as appended after this).
        push_bit(&mut c.validity, c.len, self.is_some());
    }
    fn append_null(c: &mut Column) {
        T::append_null(c);
    }
}

impl Column {
    /// The column of `values`.
    pub fn of<T: Value>(values: impl IntoIterator<Item = T>) -> Column {
        let mut c = Column { format: T::FORMAT, ..Column::default() };
        if T::FORMAT == "str" {
            c.offsets.extend_from_slice(&0i32.to_le_bytes());
        }
        for v in values {
            v.append(&mut c);
            c.len += 1;
        }
        c
    }

    /// `(format, length, validity, values, offsets)` for `routerlab.output.column`.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        let bytes = |b: &[u8]| PyBytes::new(py, b);
        let validity = (self.nulls > 0).then(|| bytes(&self.validity));
        let offsets = (self.format == "str").then(|| bytes(&self.offsets));
        (self.format, self.len, validity, bytes(&self.values), offsets).into_pyobject(py)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_bits_and_offsets_are_arrows() {
        let c = Column::of([1.5f64, -2.0]);
        assert_eq!((c.format, c.len, c.nulls), ("f64", 2, 0));
        assert_eq!(c.values, [1.5f64.to_le_bytes(), (-2.0f64).to_le_bytes()].concat());

        let c = Column::of([Some(7u32), None, Some(9)]);
        assert_eq!((c.len, c.nulls), (3, 1));
        assert_eq!(c.validity, [0b101]);
        assert_eq!(c.values, [7u32.to_le_bytes(), [0; 4], 9u32.to_le_bytes()].concat());

        let c = Column::of((0..10).map(|i| i % 3 == 0));
        assert_eq!(c.values, [0b0100_1001, 0b10]);

        let c = Column::of(["ab", "", "cde"]);
        assert_eq!(c.values, b"abcde");
        let offsets: Vec<u8> = [0i32, 2, 2, 5].iter().flat_map(|o| o.to_le_bytes()).collect();
        assert_eq!(c.offsets, offsets);

        let c = Column::of(Vec::<String>::new());
        assert_eq!((c.len, c.offsets.len()), (0, 4));
    }
}
