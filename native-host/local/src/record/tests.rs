//! The activity record on disk: written, read back, torn, pruned, exported.

use super::*;

fn entry(seq: u64, tab: i32, what: &str, outcome: &str) -> ActivityEntry {
    ActivityEntry {
        seq,
        at_ms: 1_764_000_000_000 + seq * 1000,
        agent: "ada".into(),
        tab: Some(TabId(tab)),
        method: "input.click".into(),
        what: what.into(),
        outcome: Some(outcome.into()),
        ms: Some(12),
        typed: None,
        site: None,
    }
}

fn header(id: &str, started_ms: u64) -> Header {
    Header {
        format: FORMAT,
        id: id.into(),
        agent: "ada".into(),
        started_ms,
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
}

#[test]
fn a_session_is_written_line_by_line_privately_and_read_back() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    assert!(record.list().expect("no record yet").is_empty());
    let mut w = Writer::create(&record, &header("1-2-3", 1_764_000_000_000)).expect("create");
    w.append(&entry(1, 7, "click · button \"Send\"", "ok"))
        .expect("append");
    w.append(&entry(2, 8, "go to https://x.test/", "TIMEOUT"))
        .expect("append");
    let mut person = entry(3, 7, "take control · tab 7", "ok");
    person.method = "person.takeover".into();
    w.append(&person).expect("append");
    assert_eq!(mode(record.dir()), 0o700);
    assert_eq!(mode(&record.dir().join("1-2-3.jsonl")), 0o600);
    let s = record.read("1-2-3").expect("read");
    assert_eq!(s.entries.len(), 3);
    assert_eq!(s.skipped, 0);
    let list = record.list().expect("list");
    assert_eq!(list.len(), 1);
    let one = &list[0];
    assert_eq!((one.requests, one.failed, one.by_person), (2, 1, 1));
    assert_eq!(one.tabs, vec![TabId(7), TabId(8)]);
    assert_eq!(one.last_ms, 1_764_000_000_000 + 3000 + 12);
    // A second writer on the same file goes on after a line of its own.
    let mut again = Writer::open(&record, "1-2-3").expect("open");
    again
        .append(&entry(4, 7, "press Enter", "ok"))
        .expect("append");
    assert_eq!(record.read("1-2-3").expect("read").entries.len(), 4);
    // Ids are checked before any path is made of them.
    for bad in ["", "../x", "-1", "1/2", "a1", &"1".repeat(65)] {
        assert!(
            matches!(record.read(bad), Err(RecordError::BadId(_))),
            "{bad}"
        );
        assert!(
            matches!(record.clear(bad), Err(RecordError::BadId(_))),
            "{bad}"
        );
    }
    assert!(matches!(record.read("9"), Err(RecordError::NotFound(_))));
    assert!(matches!(
        Writer::open(&record, "9"),
        Err(RecordError::NotFound(_))
    ));
    // Creating a session that exists never overwrites it.
    assert!(Writer::create(&record, &header("1-2-3", 0)).is_err());
    assert_eq!(record.read("1-2-3").expect("read").entries.len(), 4);
}

#[test]
fn a_torn_line_is_skipped_and_counted_and_the_rest_kept() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let mut w = Writer::create(&record, &header("5", 1)).expect("create");
    w.append(&entry(1, 1, "a", "ok")).expect("append");
    // A daemon killed in the middle of a line.
    let path = record.dir().join("5.jsonl");
    let mut f = OpenOptions::new().append(true).open(&path).expect("open");
    f.write_all(br#"{"seq":2,"atMs":1,"agent":"ada","wh"#)
        .expect("torn");
    drop(f);
    let mut w = Writer::open(&record, "5").expect("open");
    w.append(&entry(3, 1, "c", "ok")).expect("append");
    // And in the middle of a picture's line.
    let mut f = OpenOptions::new().append(true).open(&path).expect("open");
    f.write_all(br#"{"frameOf":3,"jpeg":"/9j/4AAQSkZJRgABAQ"#)
        .expect("torn");
    drop(f);
    let s = record.read("5").expect("read");
    assert_eq!(
        s.entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![1, 3]
    );
    assert_eq!((s.skipped, s.frames.len()), (2, 0));
    // The list, which counts pictures without decoding them, agrees.
    let listed = &record.list().expect("list")[0];
    assert_eq!((listed.skipped, listed.frames), (2, 0));
}

#[test]
fn a_file_that_is_no_record_is_damaged_and_left_out_of_the_list() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    record.prepare().expect("dir");
    std::fs::write(record.dir().join("6.jsonl"), "not json\n").expect("write");
    std::fs::write(record.dir().join("7.jsonl"), "").expect("write");
    // Another session's header under this name.
    let other = serde_json::to_string(&header("9", 1)).expect("json");
    std::fs::write(record.dir().join("8.jsonl"), other + "\n").expect("write");
    std::fs::write(record.dir().join("notes.txt"), "x").expect("write");
    for id in ["6", "7", "8"] {
        assert!(
            matches!(record.read(id), Err(RecordError::Damaged { .. })),
            "{id}"
        );
    }
    assert!(record.list().expect("list").is_empty());
    // Clearing all removes the session files, nothing else.
    assert_eq!(record.clear_all().expect("clear"), 3);
    assert!(record.dir().join("notes.txt").exists());
}

#[test]
fn a_planted_link_is_never_followed() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    record.prepare().expect("dir");
    let target = root.path().join("precious");
    std::fs::write(&target, "keep me\n").expect("write");
    std::os::unix::fs::symlink(&target, record.dir().join("4.jsonl")).expect("link");
    assert!(Writer::create(&record, &header("4", 1)).is_err());
    assert!(Writer::open(&record, "4").is_err());
    assert!(record.read("4").is_err());
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep me\n");
    // A record directory that is a link, or open to others, is refused.
    let other = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(root.path(), other.path().join(DIR)).expect("link");
    assert!(Record::in_state_dir(other.path()).prepare().is_err());
    std::fs::set_permissions(record.dir(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert!(record.prepare().is_err());
}

#[test]
fn the_oldest_sessions_go_first_past_the_size_or_the_age_and_live_ones_stay() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let now = SystemTime::now();
    for (i, id) in ["10", "11", "12", "13"].iter().enumerate() {
        let mut w = Writer::create(&record, &header(id, 1)).expect("create");
        w.append(&entry(1, 1, &"x".repeat(1000), "ok"))
            .expect("append");
        // Last written i hours ago, the first the oldest.
        let at = now - Duration::from_secs(3600 * (4 - i as u64));
        let f = File::options()
            .append(true)
            .open(record.dir().join(format!("{id}.jsonl")));
        f.expect("open").set_modified(at).expect("mtime");
    }
    let size: u64 = record.list().expect("list").iter().map(|s| s.bytes).sum();
    let each = size / 4;
    // Room for two and a half: the two oldest go, but "10" is being written.
    let limits = Limits {
        max_bytes: each * 5 / 2,
        max_age: Duration::from_secs(86_400),
    };
    assert_eq!(record.prune(&limits, now, &["10"]).expect("prune"), 2);
    let mut left: Vec<String> = record
        .list()
        .expect("list")
        .into_iter()
        .map(|s| s.id)
        .collect();
    left.sort();
    assert_eq!(left, vec!["10", "13"]);
    // Older than the age: gone whatever the size.
    let limits = Limits {
        max_bytes: u64::MAX,
        max_age: Duration::from_secs(3600 + 60),
    };
    assert_eq!(record.prune(&limits, now, &[]).expect("prune"), 1);
    let left: Vec<String> = record
        .list()
        .expect("list")
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, vec!["13"]);
}

#[test]
fn a_full_disk_loses_the_line_being_written_and_the_next_one_stands_alone() {
    // Writes to /dev/full fail as a full disk does.
    let Ok(file) = OpenOptions::new().append(true).open("/dev/full") else {
        return;
    };
    let mut w = Writer { file, torn: false };
    assert!(w.append(&entry(1, 1, "a", "ok")).is_err());
    assert!(w.torn);
    // The same writer on a real file: its next line begins on a line of
    // its own.
    let root = tempfile::tempdir().expect("tempdir");
    let path = root.path().join("f");
    std::fs::write(&path, "{\"half").expect("write");
    w.file = OpenOptions::new().append(true).open(&path).expect("open");
    w.append(&entry(2, 1, "b", "ok")).expect("append");
    assert!(!w.torn);
    let text = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(serde_json::from_str::<ActivityEntry>(lines[1]).is_ok());
}

#[test]
fn an_export_is_one_page_with_no_script_and_everything_escaped() {
    let mut hostile = entry(1, 3, "click · button \"<script>alert(1)</script>\"", "ok");
    hostile.agent = "<img src=x onerror=alert(1)>".into();
    let mut bad = entry(2, 3, "go to https://x.test/'\"><iframe>", "BLOCKED_TARGET");
    bad.agent = hostile.agent.clone();
    let session = Session {
        header: Header {
            agent: hostile.agent.clone(),
            ..header("1-2", 1_764_000_000_000)
        },
        entries: vec![hostile, bad],
        frames: std::collections::BTreeMap::new(),
        frame_count: 0,
        skipped: 1,
    };
    let page = export(&session);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("default-src 'none'"));
    for forbidden in [
        "<script",
        "<img",
        "<iframe",
        "onerror=alert(1)>",
        "http-equiv=\"refresh",
    ] {
        assert!(!page.contains(forbidden), "{forbidden}");
    }
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("BLOCKED_TARGET"));
    assert!(page.contains("2025-11-24 16:00:01"));
    assert!(page.contains("1 line(s) could not be read"));
}

#[test]
fn times_read_in_utc() {
    assert_eq!(utc(0), "1970-01-01 00:00:00");
    assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00");
    assert_eq!(utc(1_764_000_000_000), "2025-11-24 16:00:00");
    assert_eq!(utc(4_102_444_799_000), "2099-12-31 23:59:59");
}

/// A JPEG's first bytes, base64.
const JPEG: &str = "/9j/4AAQSkZJRgABAQAAAQABAAD";

#[test]
fn frames_are_kept_beside_their_entries_and_only_a_jpeg_gets_in() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let mut w = Writer::create(&record, &header("20", 1)).expect("create");
    w.append(&entry(1, 1, "click · a", "ok")).expect("append");
    w.append_frame(&Frame {
        frame_of: 1,
        jpeg: JPEG.into(),
    })
    .expect("frame");
    w.append(&entry(2, 1, "click · b", "ok")).expect("append");
    // The writer refuses anything else.
    for bad in ["iVBORw0KGgo=", "/9j/\"><script>alert(1)</script>", ""] {
        let f = Frame {
            frame_of: 2,
            jpeg: bad.into(),
        };
        assert!(w.append_frame(&f).is_err(), "{bad}");
    }
    // A line planted by hand is read past.
    let path = record.dir().join("20.jsonl");
    let mut f = OpenOptions::new().append(true).open(&path).expect("open");
    f.write_all(b"{\"frameOf\":2,\"jpeg\":\"/9j/\\\"><script>x</script>\"}\n")
        .expect("plant");
    drop(f);
    let s = record.read("20").expect("read");
    assert_eq!(s.entries.len(), 2);
    assert_eq!(s.frames.len(), 1);
    assert_eq!(s.frames.get(&1).map(String::as_str), Some(JPEG));
    assert_eq!(s.skipped, 1);
    let page = export(&s);
    assert!(page.contains(&format!("src=\"data:image/jpeg;base64,{JPEG}\"")));
    assert!(!page.contains("<script"));
    // Listing counts pictures without reading them.
    let listed = &record.list().expect("list")[0];
    assert_eq!((listed.frames, listed.requests), (2, 2));
    let light = record.read_with("20", false).expect("read");
    assert!(light.frames.is_empty());
}

#[test]
fn a_long_session_reads_a_page_at_a_time_with_its_filters_and_pictures() {
    let root = tempfile::tempdir().expect("tempdir");
    let record = Record::in_state_dir(root.path());
    let mut w = Writer::create(&record, &header("30", 1)).expect("create");
    for seq in 1..=10_000u64 {
        let tab = if seq % 2 == 0 { 1 } else { 2 };
        let outcome = if seq % 100 == 0 { "TIMEOUT" } else { "ok" };
        w.append(&entry(seq, tab, "click", outcome))
            .expect("append");
        if seq % 10 == 0 {
            w.append_frame(&Frame {
                frame_of: seq,
                jpeg: format!("{JPEG}{seq}"),
            })
            .expect("frame");
        }
    }
    let all = Filter::default();
    let last = record.page("30", &all, 9_950, 100).expect("page");
    assert_eq!(last.total, 10_000);
    assert_eq!(last.entries.len(), 50);
    assert_eq!(last.entries[0].seq, 9_951);
    assert_eq!(last.tabs, vec![TabId(2), TabId(1)]);
    assert_eq!(
        last.framed,
        (9_960..=10_000).step_by(10).collect::<Vec<u64>>()
    );
    let on_one = Filter {
        tab: Some(TabId(1)),
        ok: None,
    };
    let p = record.page("30", &on_one, 0, 3).expect("page");
    assert_eq!(
        (p.total, p.entries.iter().map(|e| e.seq).collect::<Vec<_>>()),
        (5_000, vec![2, 4, 6])
    );
    let failed = Filter {
        tab: None,
        ok: Some(false),
    };
    let p = record.page("30", &failed, 0, 200).expect("page");
    assert_eq!(p.total, 100);
    assert!(p
        .entries
        .iter()
        .all(|e| e.outcome.as_deref() == Some("TIMEOUT")));
    // Past the end: nothing, and the count.
    assert_eq!(
        record
            .page("30", &all, 20_000, 10)
            .expect("page")
            .entries
            .len(),
        0
    );
    // Pictures, within the budget.
    let frames = record.frames("30", &[10, 20, 25], 1 << 20).expect("frames");
    assert_eq!(
        frames.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        vec![10, 20]
    );
    assert_eq!(frames[0].1, format!("{JPEG}10"));
    let one = record
        .frames("30", &[10, 20], JPEG.len() + 2)
        .expect("frames");
    assert_eq!(one.len(), 1);
    assert!(matches!(
        record.page("../x", &all, 0, 1),
        Err(RecordError::BadId(_))
    ));
    assert!(matches!(
        record.frames("31", &[1], 10),
        Err(RecordError::NotFound(_))
    ));
}
