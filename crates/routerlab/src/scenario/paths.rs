//! Field paths in error messages, through `kind`-tagged tables.
//!
//! `serde_path_to_error` reports the path of a bad field (`workload[0].bogus`), but serde's
//! internally tagged enums buffer their contents, so inside a `kind = "…"` table the path is
//! lost. [`tagged`] dispatches on `kind` by hand, deserializes the variant with its own path
//! tracker, and carries the inner path out inside the error message (between two `\u{1}`
//! marks); [`split`] joins it back onto the outer path. Nested tagged tables compose.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};

const MARK: char = '\u{1}';

/// Join two path fragments (`a` + `b` → `a.b`, `a` + `[0]` → `a[0]`).
pub fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ if b.starts_with('[') => format!("{a}{b}"),
        _ => format!("{a}.{b}"),
    }
}

/// A key as a path shows it: bare if TOML allows it bare, else quoted (`""`, `"a b"`).
fn key_name(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_string() } else { format!("{key:?}") }
}

/// The table holding the field at `path` (as `split` writes paths: `a.b[2].c`) and the field's
/// key; None if there is no such table, or the field is an array element.
pub fn parent_of<'a>(doc: &'a mut toml::Table, path: &'a str) -> Option<(&'a mut toml::Table, &'a str)> {
    let (parents, last) = match path.rsplit_once('.') {
        Some((p, l)) => (Some(p), l),
        None => (None, path),
    };
    if last.is_empty() || last.contains('[') || last.starts_with('"') {
        return None;
    }
    let mut table = doc;
    for seg in parents.map(|p| p.split('.').collect::<Vec<_>>()).unwrap_or_default() {
        let (key, index) = match seg.split_once('[') {
            Some((k, rest)) => (k, Some(rest.strip_suffix(']')?.parse::<usize>().ok()?)),
            None => (seg, None),
        };
        if key.starts_with('"') {
            return None;
        }
        let value = table.get_mut(key)?;
        let value = match (index, value) {
            (Some(i), toml::Value::Array(a)) => a.get_mut(i)?,
            (None, v) => v,
            _ => return None,
        };
        table = match value {
            toml::Value::Table(t) => t,
            _ => return None,
        };
    }
    Some((table, last))
}

/// An error message that carries an inner path.
pub fn at<E: serde::de::Error>(path: &str, msg: impl std::fmt::Display) -> E {
    E::custom(format!("{MARK}{path}{MARK}{msg}"))
}

/// Split a serde error (outer path + message) into the full path and the plain message, also
/// turning serde's "unknown field" wording into `path.key: unknown key (…)` and its "missing
/// field" into `path.key: missing`.
pub fn split(path: &str, msg: &str) -> (String, String) {
    let path = if path == "." { "" } else { path };
    if let Some(rest) = msg.strip_prefix(MARK)
        && let Some((inner, m)) = rest.split_once(MARK)
    {
        let (p, m) = split(inner, m);
        return (join(path, &p), m);
    }
    if let Some(rest) = msg.strip_prefix("unknown field `")
        && let Some((key, tail)) = rest.split_once('`')
    {
        let expected = tail.trim_start_matches(", ").replace('`', "");
        let hint = if expected.starts_with("expected") {
            format!(" ({})", expected.replace("expected one of ", "expected one of: "))
        } else {
            String::new()
        };
        // serde_path_to_error already appended the key to the path.
        let base = if path == key {
            ""
        } else {
            path.strip_suffix(key).and_then(|p| p.strip_suffix('.')).unwrap_or(path)
        };
        return (join(base, &key_name(key)), format!("unknown key{hint}"));
    }
    if let Some(rest) = msg.strip_prefix("missing field `")
        && let Some((key, _)) = rest.split_once('`')
    {
        return (join(path, key), "missing".to_string());
    }
    if let Some(plain) = plain_type_error(msg) {
        return (path.to_string(), plain);
    }
    (path.to_string(), msg.trim_end().to_string())
}

/// serde's "invalid type: string \"10\", expected u32" in a user's words: what was found, and
/// what kind of value goes there, with an example (Rust's type names mean nothing to a user).
fn plain_type_error(msg: &str) -> Option<String> {
    let (found, expected) = msg.strip_prefix("invalid type: ")?.trim_end().rsplit_once(", expected ")?;
    let (wanted, example) = match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" => ("a whole number", Some("10")),
        "f32" | "f64" => ("a number", Some("0.5")),
        "a boolean" => ("true or false", None),
        _ => return None,
    };
    let hint = match (example, found.starts_with("string")) {
        (Some(e), true) => format!(" (e.g. {e}, without quotes)"),
        (Some(e), false) => format!(" (e.g. {e})"),
        (None, true) => " (without quotes)".to_string(),
        (None, false) => String::new(),
    };
    Some(format!("{found} where {wanted} is expected{hint}"))
}

/// Deserialize `T` from a TOML value, returning `(path, message)` on error.
pub fn from_value<T: DeserializeOwned>(v: toml::Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(v).map_err(|e| split(&e.path().to_string(), e.inner().message()))
}

/// Deserialize a `kind`-tagged table: read `kind`, check it against `kinds`, and hand the rest
/// to `variant`, which deserializes it with [`from_value`].
pub fn tagged<'de, D, T>(
    d: D,
    what: &str,
    kinds: &[&str],
    variant: impl FnOnce(&str, toml::Value) -> Result<T, (String, String)>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let mut table = toml::Table::deserialize(d).map_err(|e: D::Error| {
        // A missing table keeps serde's "missing field", which `split` puts at its path.
        if e.to_string().starts_with("missing field") {
            return e;
        }
        D::Error::custom(format!("expected a table with a `kind` key (one of: {})", kinds.join(", ")))
    })?;
    let kind = match table.remove("kind") {
        None => {
            return Err(at("kind", format!("missing (the {what} kind: one of {})", kinds.join(", "))));
        }
        Some(toml::Value::String(s)) => s,
        Some(other) => {
            return Err(at("kind", format!("expected a string, found {}", other.type_str())));
        }
    };
    if !kinds.contains(&kind.as_str()) {
        return Err(at(
            "kind",
            format!("unknown {what} kind \"{kind}\" (expected one of: {})", kinds.join(", ")),
        ));
    }
    variant(&kind, toml::Value::Table(table)).map_err(|(p, m)| at(&p, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_paths() {
        assert_eq!(join("a", "b"), "a.b");
        assert_eq!(join("a", "[0]"), "a[0]");
        assert_eq!(join("", "b"), "b");
    }

    #[test]
    fn nested_marks_compose() {
        let inner = format!("{MARK}limit{MARK}bad");
        let mid = format!("{MARK}queue{MARK}{inner}");
        assert_eq!(
            split("topology.bottleneck", &mid),
            ("topology.bottleneck.queue.limit".into(), "bad".into())
        );
    }

    #[test]
    fn unknown_field_is_reworded() {
        let (p, m) = split("workload[0].bogus", "unknown field `bogus`, expected `kind` or `flows`");
        assert_eq!(p, "workload[0].bogus");
        assert_eq!(m, "unknown key (expected kind or flows)");
    }
}
