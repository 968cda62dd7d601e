/*! Scenario files: TOML in, a checked [`SimSpec`] out — or every problem, each with its path.

```text
text ──toml──▶ ScenarioFile (serde, unknown keys refused, units parsed)
     ──resolve transport overrides──▶ Scenario
     ──estimate the work (memory, output) against the limits──▶
     ──build (names, topology, reachability)──▶ SimSpec
```

Errors carry the path of the offending field in the file's own terms —
`topology.bottleneck.rate: "-1Gbps" is not a rate (…)`, `workload[0].bogus: unknown key` — so
`routerlab validate` can point at the line to fix. Nothing runs until a scenario is valid.

The *normalized* scenario (every default filled in, canonical units, seed removed) is what the
scenario hash is computed over: two files that mean the same run hash the same.
*/

pub mod budget;
mod build;
mod paths;
pub mod schema;
pub mod values;

pub use build::{DEFAULT_MTU, DEFAULT_QUEUE};

use std::fmt;
use std::path::{Path, PathBuf};

use crate::sim::SimSpec;
use schema::{ScenarioFile, Transport};

/// A problem with a scenario, at a field path (empty for file-level problems).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn at(path: impl Into<String>, message: String) -> ScenarioError {
        ScenarioError { path: path.into(), message }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A parsed scenario, with every workload's transport resolved.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub file: ScenarioFile,
    /// The `[transport]` table with defaults filled in.
    pub transport: Transport,
    /// Per workload: the base transport with that workload's overrides applied.
    pub workload_transports: Vec<Transport>,
    /// Directory that relative file names (CSV flow lists) are resolved against.
    pub base_dir: Option<PathBuf>,
}

impl Scenario {
    /// Parse and check a scenario's text (schema and per-field constraints).
    pub fn parse(src: &str) -> Result<Scenario, Vec<ScenarioError>> {
        let de = toml::Deserializer::parse(src).map_err(|e| vec![syntax_error(src, &e)])?;
        let file: ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let (path, message) = paths::split(&e.path().to_string(), e.inner().message());
            every_schema_error(src, ScenarioError { path, message })
        })?;
        let mut errs = Vec::new();
        let base_table = file.transport.clone().unwrap_or_default();
        let transport = match paths::from_value::<Transport>(toml::Value::Table(base_table.clone())) {
            Ok(t) => t,
            Err((p, m)) => return Err(vec![ScenarioError::at(paths::join("transport", &p), m)]),
        };
        transport.check("transport", &mut errs);
        let mut workload_transports = Vec::new();
        for (i, w) in file.workloads.iter().enumerate() {
            let t = match w.transport() {
                None => transport.clone(),
                Some(o) => {
                    let mut merged = base_table.clone();
                    merged.extend(o.clone());
                    let path = format!("workload[{i}].transport");
                    match paths::from_value::<Transport>(toml::Value::Table(merged)) {
                        Ok(t) => {
                            t.check(&path, &mut errs);
                            t
                        }
                        Err((p, m)) => {
                            errs.push(ScenarioError::at(paths::join(&path, &p), m));
                            continue;
                        }
                    }
                }
            };
            workload_transports.push(t);
        }
        if errs.is_empty() {
            Ok(Scenario { file, transport, workload_transports, base_dir: None })
        } else {
            Err(errs)
        }
    }

    /// Parse, check and build: the whole of `routerlab validate`.
    pub fn load(src: &str) -> Result<(Scenario, SimSpec), Vec<ScenarioError>> {
        let sc = Scenario::parse(src)?;
        let spec = sc.to_spec()?;
        Ok((sc, spec))
    }

    /// Read, parse, check and build a scenario file; relative paths inside it are resolved
    /// against its directory.
    pub fn load_file(path: &Path) -> Result<(Scenario, SimSpec), Vec<ScenarioError>> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| vec![ScenarioError::at("", format!("cannot read {}: {e}", path.display()))])?;
        let mut sc = Scenario::parse(&text)?;
        sc.base_dir = path.parent().map(Path::to_path_buf);
        let spec = sc.to_spec()?;
        Ok((sc, spec))
    }

    /// Build the simulation spec (names resolved, topology checked, workloads expanded),
    /// within the limits the environment sets ([`budget::Limits::from_env`]).
    pub fn to_spec(&self) -> Result<SimSpec, Vec<ScenarioError>> {
        self.to_spec_within(&budget::Limits::from_env().map_err(|e| vec![e])?)
    }

    /// Build the simulation spec if the work it implies ([`budget::estimate`]) is within
    /// `limits`: nothing large is allocated before that is known.
    pub fn to_spec_within(&self, limits: &budget::Limits) -> Result<SimSpec, Vec<ScenarioError>> {
        let errs = budget::estimate(self).check(limits);
        if !errs.is_empty() {
            return Err(errs);
        }
        build::build(self)
    }

    pub fn seed(&self) -> u64 {
        self.file.run.seed
    }

    pub fn set_seed(&mut self, seed: u64) {
        self.file.run.seed = seed;
    }

    /// The normalized scenario as canonical JSON, without the seed.
    pub fn normalized_json(&self) -> String {
        let workloads: Vec<serde_json::Value> = self
            .file
            .workloads
            .iter()
            .zip(&self.workload_transports)
            .map(|(w, t)| {
                let mut v = serde_json::to_value(w).expect("workload serializes");
                if let Some(obj) = v.as_object_mut() {
                    obj.insert("transport".into(), serde_json::to_value(t).expect("transport serializes"));
                }
                v
            })
            .collect();
        let doc = serde_json::json!({
            "run": { "duration": self.file.run.duration },
            "topology": self.file.topology,
            "transport": self.transport,
            "workload": workloads,
            "hosts": self.file.hosts,
            "link_event": self.file.link_events,
            "output": self.file.output,
        });
        serde_json::to_string(&doc).expect("scenario serializes")
    }
}

/// Every schema problem of a scenario whose first is `first`, not only that one: the field at
/// fault is taken out of the document and the rest checked again — a required field taken out
/// gets a stand-in of some kind (`PROBES`) — until the document passes, no stand-in fits, or
/// 32 problems are found. Stand-ins serve only to find the next problem.
fn every_schema_error(src: &str, first: ScenarioError) -> Vec<ScenarioError> {
    let mut doc: toml::Table = match src.parse() {
        Ok(doc) => doc,
        Err(_) => return vec![first],
    };
    let check = |doc: &toml::Table| paths::from_value::<ScenarioFile>(toml::Value::Table(doc.clone()));
    let mut errs = vec![first];
    // The fields taken out: a later "missing" there is ours, not the user's.
    let mut removed: Vec<String> = Vec::new();
    for _ in 0..64 {
        let at = errs[errs.len() - 1].path.clone();
        let Some((table, key)) = paths::parent_of(&mut doc, &at) else { break };
        table.remove(key);
        removed.push(at);
        let mut next = check(&doc).err();
        while let Some((p, _)) = &next
            && removed.contains(p)
        {
            let p = p.clone();
            let fits = PROBES.iter().any(|probe| {
                let (table, key) = paths::parent_of(&mut doc, &p).expect("a field taken out");
                table.insert(key.to_string(), probe());
                next = check(&doc).err();
                !matches!(&next, Some((q, _)) if *q == p)
            });
            if !fits {
                next = None;
            }
        }
        match next {
            Some((path, message)) if errs.len() < 32 => errs.push(ScenarioError { path, message }),
            _ => break,
        }
    }
    if let Some(toml::Value::Table(t)) = doc.get("transport")
        && let Err((p, m)) = paths::from_value::<Transport>(toml::Value::Table(t.clone()))
    {
        errs.push(ScenarioError::at(paths::join("transport", &p), m));
    }
    errs
}

/// Stand-ins for a required field found at fault, one of each kind of value a scenario has.
const PROBES: [fn() -> toml::Value; 6] = [
    || toml::Value::String("1s".into()),
    || toml::Value::String("1Gbps".into()),
    || toml::Value::String("100pkts".into()),
    || toml::Value::Integer(1),
    || toml::Value::Float(0.5),
    || toml::Value::Boolean(true),
];

/// A TOML syntax error, located by line and column.
fn syntax_error(src: &str, e: &toml::de::Error) -> ScenarioError {
    let loc = e.span().map(|s| {
        let before = &src[..s.start.min(src.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) + 1;
        format!("line {line}, column {col}: ")
    });
    ScenarioError {
        path: String::new(),
        message: format!("{}{}", loc.unwrap_or_default(), e.message().trim_end()),
    }
}

#[cfg(test)]
mod tests;
