//! The record as the daemon writes it.

use super::*;
use cotab_shared::TabId;

fn entry(seq: u64, what: &str) -> ActivityEntry {
    ActivityEntry {
        seq,
        at_ms: record::now_ms(),
        agent: "ada".into(),
        tab: Some(TabId(1)),
        method: "input.click".into(),
        what: what.into(),
        outcome: Some("ok".into()),
        ms: Some(3),
        typed: None,
        site: None,
    }
}

fn person(what: &str) -> ActivityEntry {
    ActivityEntry {
        method: "person.takeover".into(),
        agent: String::new(),
        ..entry(0, what)
    }
}

#[test]
fn each_session_has_its_file_and_the_person_is_in_every_live_one() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let r = Recorder::start(record.clone(), Limits::default()).expect("started");
    // The person before any agent acted: no file to go to.
    r.person(vec![SessionId(1)], person("take control of tab 1"));
    r.entry(SessionId(1), "ada", entry(1, "click · a"));
    r.entry(SessionId(2), "bob", entry(2, "click · b"));
    r.person(
        vec![SessionId(1), SessionId(2), SessionId(3)],
        person("hand back tab 1"),
    );
    r.entry(SessionId(1), "ada", entry(3, "click · c"));
    r.flush();
    let list = record.list().expect("list");
    assert_eq!(list.len(), 2);
    let ada = record.read(&r.id_of(SessionId(1))).expect("ada");
    assert_eq!(ada.header.agent, "ada");
    assert_eq!(
        ada.entries
            .iter()
            .map(|e| e.what.as_str())
            .collect::<Vec<_>>(),
        ["click · a", "hand back tab 1", "click · c"]
    );
    let bob = record.read(&r.id_of(SessionId(2))).expect("bob");
    assert_eq!(bob.entries.len(), 2);
    assert!(bob.entries[1].by_person());
    assert!(record.read(&r.id_of(SessionId(3))).is_err());
    // The person clears ada's session while it is open: the next entry
    // begins a new file instead of writing to the removed one.
    record.clear(&r.id_of(SessionId(1))).expect("clear");
    r.entry(SessionId(1), "ada", entry(4, "click · d"));
    drop(r);
    let again = record.list().expect("list");
    let ada = again.iter().find(|s| s.agent == "ada").expect("ada again");
    assert_eq!(ada.requests, 1);
}

#[test]
fn more_sessions_than_open_files_all_keep_every_entry() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let r = Recorder::start(record.clone(), Limits::default()).expect("started");
    let n = OPEN as u64 * 2 + 3;
    for round in 0..3 {
        for s in 0..n {
            r.entry(SessionId(s), "ada", entry(round, "click"));
        }
    }
    drop(r);
    let list = record.list().expect("list");
    assert_eq!(list.len(), n as usize);
    assert!(
        list.iter().all(|s| s.requests == 3 && s.skipped == 0),
        "{list:?}"
    );
}

#[test]
fn a_record_of_no_size_is_not_kept() {
    let root = tempfile::tempdir().expect("tempdir");
    let limits = Limits {
        max_bytes: 0,
        ..Limits::default()
    };
    assert!(Recorder::start(Record::in_state_dir(root.path()), limits).is_none());
}

#[test]
fn the_record_is_pruned_as_it_grows_and_the_live_session_stays() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let limits = Limits {
        max_bytes: 20_000,
        max_age: Duration::from_secs(3600),
    };
    let r = Recorder::start(record.clone(), limits).expect("started");
    let long = "x".repeat(900);
    for s in 0..40 {
        r.entry(SessionId(s), "ada", entry(1, &long));
        r.entry(SessionId(s), "ada", entry(2, &long));
    }
    r.flush();
    let list = record.list().expect("list");
    let total: u64 = list.iter().map(|s| s.bytes).sum();
    // Pruned after each twentieth of the bound: never far past it.
    assert!(total <= 20_000 + 20_000 / 20 + 2 * 1100 * 16, "{total}");
    assert!(list.len() < 40);
    assert!(list.iter().any(|s| s.id == r.id_of(SessionId(39))));
}
