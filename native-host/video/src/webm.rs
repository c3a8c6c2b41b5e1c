//! The WebM container, written as it goes: a header with one VP8 video
//! track, then each frame as a cluster of its own, so a file cut short at
//! any point (a crash, a full disk) still plays up to its last whole
//! frame. The segment's size is left unknown, as a live stream's is; at
//! the end the chapters follow the frames and the duration, kept free in
//! the header, is written in place.
//!
//! Element ids and layout: the Matroska specification (RFC 9559) as WebM
//! restricts it.

/// `EBML`, the file's own header.
const EBML: u32 = 0x1A45_DFA3;
const EBML_VERSION: u32 = 0x4286;
const EBML_READ_VERSION: u32 = 0x42F7;
const EBML_MAX_ID_LENGTH: u32 = 0x42F2;
const EBML_MAX_SIZE_LENGTH: u32 = 0x42F3;
const DOC_TYPE: u32 = 0x4282;
const DOC_TYPE_VERSION: u32 = 0x4287;
const DOC_TYPE_READ_VERSION: u32 = 0x4285;
const SEGMENT: u32 = 0x1853_8067;
const INFO: u32 = 0x1549_A966;
const TIMESTAMP_SCALE: u32 = 0x2A_D7B1;
const DURATION: u32 = 0x4489;
const MUXING_APP: u32 = 0x4D80;
const WRITING_APP: u32 = 0x5741;
const TRACKS: u32 = 0x1654_AE6B;
const TRACK_ENTRY: u32 = 0xAE;
const TRACK_NUMBER: u32 = 0xD7;
const TRACK_UID: u32 = 0x73C5;
const TRACK_TYPE: u32 = 0x83;
const FLAG_LACING: u32 = 0x9C;
const CODEC_ID: u32 = 0x86;
const VIDEO: u32 = 0xE0;
const PIXEL_WIDTH: u32 = 0xB0;
const PIXEL_HEIGHT: u32 = 0xBA;
const CLUSTER: u32 = 0x1F43_B675;
const TIMESTAMP: u32 = 0xE7;
const SIMPLE_BLOCK: u32 = 0xA3;
const SEEK_HEAD: u32 = 0x114D_9B74;
const SEEK: u32 = 0x4DBB;
const SEEK_ID: u32 = 0x53AB;
const SEEK_POSITION: u32 = 0x53AC;
const VOID: u32 = 0xEC;
const CUES: u32 = 0x1C53_BB6B;
const CUE_POINT: u32 = 0xBB;
const CUE_TIME: u32 = 0xB3;
const CUE_TRACK_POSITIONS: u32 = 0xB7;
const CUE_TRACK: u32 = 0xF7;
const CUE_CLUSTER_POSITION: u32 = 0xF1;
const CHAPTERS: u32 = 0x1043_A770;
const EDITION_ENTRY: u32 = 0x45B9;
const CHAPTER_ATOM: u32 = 0xB6;
const CHAPTER_UID: u32 = 0x73C4;
const CHAPTER_TIME_START: u32 = 0x91;
const CHAPTER_DISPLAY: u32 = 0x80;
const CHAP_STRING: u32 = 0x85;
const CHAP_LANGUAGE: u32 = 0x437C;

/// The size of an element whose end is not known when it is written.
const UNKNOWN_SIZE: [u8; 8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];

/// The room kept at the segment's start for its index of where the
/// cues and chapters are, written at the end ([`seek_head`]).
pub const SEEK_ROOM: usize = 120;

/// Timestamps count milliseconds.
const NS_PER_TICK: u64 = 1_000_000;

/// The file's start: what [`header`] wrote and where in it the duration
/// goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The bytes to write first.
    pub bytes: Vec<u8>,
    /// Where the duration's 8 bytes (a big-endian `f64` of milliseconds)
    /// are, from the file's start.
    pub duration_at: u64,
    /// Where the segment's body starts: positions in the segment count
    /// from here.
    pub segment_at: u64,
    /// Where the [`SEEK_ROOM`] bytes for the [`seek_head`] are.
    pub seek_at: u64,
    /// Where the info and the tracks are, from [`Header::segment_at`].
    pub info_at: u64,
    /// Where the tracks are, from [`Header::segment_at`].
    pub tracks_at: u64,
}

/// A top-level element of the segment that the [`seek_head`] points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level1 {
    /// The info.
    Info,
    /// The tracks.
    Tracks,
    /// The cues.
    Cues,
    /// The chapters.
    Chapters,
}

impl Level1 {
    fn id(self) -> u32 {
        match self {
            Level1::Info => INFO,
            Level1::Tracks => TRACKS,
            Level1::Cues => CUES,
            Level1::Chapters => CHAPTERS,
        }
    }
}

/// A chapter: where it starts, from the recording's start, and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chapter {
    /// Milliseconds from the start.
    pub at_ms: u64,
    /// What it is called.
    pub title: String,
}

fn id(out: &mut Vec<u8>, id: u32) {
    let bytes = id.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count();
    out.extend_from_slice(&bytes[skip..]);
}

/// An element's size as EBML writes it: the shortest length that holds it.
fn size(out: &mut Vec<u8>, n: u64) {
    let len = (1..=8u32).find(|l| n < (1u64 << (7 * l)) - 1).unwrap_or(8);
    let marked = n | (1u64 << (7 * len));
    out.extend_from_slice(&marked.to_be_bytes()[8 - len as usize..]);
}

fn element(out: &mut Vec<u8>, element_id: u32, body: &[u8]) {
    id(out, element_id);
    size(out, body.len() as u64);
    out.extend_from_slice(body);
}

fn uint(out: &mut Vec<u8>, element_id: u32, n: u64) {
    let bytes = n.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count().min(7);
    element(out, element_id, &bytes[skip..]);
}

fn text(out: &mut Vec<u8>, element_id: u32, s: &str) {
    element(out, element_id, s.as_bytes());
}

fn nested(out: &mut Vec<u8>, element_id: u32, fill: impl FnOnce(&mut Vec<u8>)) {
    let mut body = Vec::new();
    fill(&mut body);
    element(out, element_id, &body);
}

/// The EBML header, the segment's start, its info (the duration zero
/// until [`duration`] writes it) and one VP8 track of `width` × `height`.
pub fn header(width: u32, height: u32) -> Header {
    let mut out = Vec::new();
    nested(&mut out, EBML, |e| {
        uint(e, EBML_VERSION, 1);
        uint(e, EBML_READ_VERSION, 1);
        uint(e, EBML_MAX_ID_LENGTH, 4);
        uint(e, EBML_MAX_SIZE_LENGTH, 8);
        text(e, DOC_TYPE, "webm");
        uint(e, DOC_TYPE_VERSION, 4);
        uint(e, DOC_TYPE_READ_VERSION, 2);
    });
    id(&mut out, SEGMENT);
    out.extend_from_slice(&UNKNOWN_SIZE);
    let segment_at = out.len() as u64;
    let seek_at = segment_at;
    void(&mut out, SEEK_ROOM);
    let info_at = out.len() as u64 - segment_at;
    let mut info = Vec::new();
    uint(&mut info, TIMESTAMP_SCALE, NS_PER_TICK);
    text(&mut info, MUXING_APP, "cotab");
    text(&mut info, WRITING_APP, "cotab");
    id(&mut info, DURATION);
    size(&mut info, 8);
    let duration_in_info = info.len() as u64;
    info.extend_from_slice(&0f64.to_be_bytes());
    id(&mut out, INFO);
    size(&mut out, info.len() as u64);
    let duration_at = out.len() as u64 + duration_in_info;
    out.extend_from_slice(&info);
    let tracks_at = out.len() as u64 - segment_at;
    nested(&mut out, TRACKS, |t| {
        nested(t, TRACK_ENTRY, |e| {
            uint(e, TRACK_NUMBER, 1);
            uint(e, TRACK_UID, 1);
            uint(e, TRACK_TYPE, 1);
            uint(e, FLAG_LACING, 0);
            text(e, CODEC_ID, "V_VP8");
            nested(e, VIDEO, |v| {
                uint(v, PIXEL_WIDTH, u64::from(width));
                uint(v, PIXEL_HEIGHT, u64::from(height));
            });
        });
    });
    Header {
        bytes: out,
        duration_at,
        segment_at,
        seek_at,
        info_at,
        tracks_at,
    }
}

/// A `Void` element of `len` bytes in all (at least 2).
fn void(out: &mut Vec<u8>, len: usize) {
    id(out, VOID);
    // The size takes one byte up to 126, two after.
    let body = if len - 1 <= 127 { len - 2 } else { len - 3 };
    size(out, body as u64);
    out.resize(out.len() + body, 0);
}

/// The index of where each of `at` (positions from the segment's body)
/// is, padded with a `Void` to [`SEEK_ROOM`] bytes.
pub fn seek_head(at: &[(Level1, u64)]) -> Vec<u8> {
    let mut out = Vec::new();
    nested(&mut out, SEEK_HEAD, |h| {
        for (element, position) in at {
            nested(h, SEEK, |s| {
                element_id(s, SEEK_ID, element.id());
                uint(s, SEEK_POSITION, *position);
            });
        }
    });
    let rest = SEEK_ROOM.saturating_sub(out.len());
    if rest >= 2 {
        void(&mut out, rest);
    }
    out
}

fn element_id(out: &mut Vec<u8>, element_id: u32, value: u32) {
    let mut body = Vec::new();
    id(&mut body, value);
    element(out, element_id, &body);
}

/// Where to seek for a time: each of `points` a time in milliseconds and
/// its cluster's position from the segment's body.
pub fn cues(points: &[(u64, u64)]) -> Vec<u8> {
    let mut out = Vec::new();
    if points.is_empty() {
        return out;
    }
    nested(&mut out, CUES, |c| {
        for (at_ms, position) in points {
            nested(c, CUE_POINT, |p| {
                uint(p, CUE_TIME, *at_ms);
                nested(p, CUE_TRACK_POSITIONS, |t| {
                    uint(t, CUE_TRACK, 1);
                    uint(t, CUE_CLUSTER_POSITION, *position);
                });
            });
        }
    });
    out
}

/// One key frame of VP8 data at `at_ms` from the start, as a cluster of
/// its own.
pub fn frame(at_ms: u64, vp8: &[u8]) -> Vec<u8> {
    let mut block = Vec::with_capacity(vp8.len() + 4);
    // Track 1, at the cluster's own time, a key frame.
    block.extend_from_slice(&[0x81, 0, 0, 0x80]);
    block.extend_from_slice(vp8);
    let mut out = Vec::with_capacity(block.len() + 24);
    nested(&mut out, CLUSTER, |c| {
        uint(c, TIMESTAMP, at_ms);
        element(c, SIMPLE_BLOCK, &block);
    });
    out
}

/// The chapters, in the order given, as one edition.
pub fn chapters(list: &[Chapter]) -> Vec<u8> {
    let mut out = Vec::new();
    if list.is_empty() {
        return out;
    }
    nested(&mut out, CHAPTERS, |c| {
        nested(c, EDITION_ENTRY, |e| {
            for (n, chapter) in list.iter().enumerate() {
                nested(e, CHAPTER_ATOM, |a| {
                    uint(a, CHAPTER_UID, n as u64 + 1);
                    uint(a, CHAPTER_TIME_START, chapter.at_ms * NS_PER_TICK);
                    nested(a, CHAPTER_DISPLAY, |d| {
                        text(d, CHAP_STRING, &chapter.title);
                        text(d, CHAP_LANGUAGE, "eng");
                    });
                });
            }
        });
    });
    out
}

/// The duration's 8 bytes, for [`Header::duration_at`].
pub fn duration(ms: u64) -> [u8; 8] {
    (ms as f64).to_be_bytes()
}

/// An element's id and the length of its id and size fields, and its
/// body's size (none: unknown), read at the start of `b`.
fn head(b: &[u8]) -> Option<(u32, usize, Option<u64>)> {
    let first = *b.first()?;
    let id_len = first.leading_zeros() as usize + 1;
    if id_len > 4 || b.len() < id_len {
        return None;
    }
    let id = b[..id_len]
        .iter()
        .fold(0u32, |a, x| (a << 8) | u32::from(*x));
    let s = b.get(id_len..)?;
    let size_first = *s.first()?;
    let size_len = size_first.leading_zeros() as usize + 1;
    if size_len > 8 || s.len() < size_len {
        return None;
    }
    let mask = if size_len == 8 { 0 } else { 0xFFu8 >> size_len };
    let mut value = u64::from(size_first & mask);
    let mut all_ones = value == u64::from(mask);
    for x in &s[1..size_len] {
        value = (value << 8) | u64::from(*x);
        all_ones &= *x == 0xFF;
    }
    let size = (!all_ones).then_some(value);
    Some((id, id_len + size_len, size))
}

/// The key frames of a file as [`frame`] wrote them: each cluster's time
/// in milliseconds and its block's VP8 data, in order; a cluster cut
/// short ends the list.
pub fn read_frames(file: &[u8]) -> Vec<(u64, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some((id, len, size)) = file.get(at..).and_then(head) {
        let body = at + len;
        match (id, size) {
            // Into the segment's body.
            (SEGMENT, _) => at = body,
            (CLUSTER, Some(size)) => {
                let Some(cluster) = file.get(body..body + size as usize) else {
                    break;
                };
                if let Some(f) = cluster_frame(cluster) {
                    out.push(f);
                }
                at = body + size as usize;
            }
            (_, Some(size)) => at = body + size as usize,
            (_, None) => break,
        }
    }
    out
}

fn cluster_frame(cluster: &[u8]) -> Option<(u64, &[u8])> {
    let mut at = 0;
    let mut time = 0;
    while let Some((id, len, Some(size))) = cluster.get(at..).and_then(head) {
        let body = cluster.get(at + len..at + len + size as usize)?;
        match id {
            TIMESTAMP => time = body.iter().fold(0u64, |a, x| (a << 8) | u64::from(*x)),
            // Track, two bytes of time, flags, then the frame.
            SIMPLE_BLOCK => return Some((time, body.get(4..)?)),
            _ => {}
        }
        at += len + size as usize;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_the_shortest_length_and_never_the_reserved_all_ones() {
        let mut out = Vec::new();
        size(&mut out, 5);
        assert_eq!(out, [0x85]);
        out.clear();
        size(&mut out, 127);
        assert_eq!(out, [0x40, 0x7F], "0xFF alone means an unknown size");
        out.clear();
        size(&mut out, 300);
        assert_eq!(out, [0x41, 0x2C]);
    }

    #[test]
    fn the_seek_head_fills_its_room_exactly() {
        let h = header(8, 8);
        let room = &h.bytes[h.seek_at as usize..h.seek_at as usize + SEEK_ROOM];
        assert_eq!(room[0], 0xEC);
        let full = seek_head(&[
            (Level1::Info, h.info_at),
            (Level1::Tracks, h.tracks_at),
            (Level1::Cues, u64::MAX >> 8),
            (Level1::Chapters, u64::MAX >> 8),
        ]);
        assert_eq!(full.len(), SEEK_ROOM);
        assert_eq!(seek_head(&[(Level1::Info, 5)]).len(), SEEK_ROOM);
        assert_eq!(
            &h.bytes[(h.segment_at + h.info_at) as usize..][..4],
            &INFO.to_be_bytes()
        );
        assert_eq!(
            &h.bytes[(h.segment_at + h.tracks_at) as usize..][..4],
            &TRACKS.to_be_bytes()
        );
    }

    #[test]
    fn the_duration_is_where_the_header_says() {
        let h = header(640, 480);
        let at = h.duration_at as usize;
        assert_eq!(&h.bytes[at - 3..at], &[0x44, 0x89, 0x88]);
        assert_eq!(&h.bytes[at..at + 8], &0f64.to_be_bytes());
    }

    #[test]
    fn what_is_written_reads_back_frame_by_frame_and_a_cut_file_up_to_its_cut() {
        let mut file = header(4, 4).bytes;
        file.extend(frame(0, b"first"));
        file.extend(frame(40, &[7u8; 300]));
        let whole = file.len();
        file.extend(frame(80, b"third"));
        file.extend(cues(&[(0, 0)]));
        file.extend(chapters(&[Chapter {
            at_ms: 40,
            title: "x".into(),
        }]));
        let frames = read_frames(&file);
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0], (0, &b"first"[..]));
        assert_eq!(frames[1], (40, &[7u8; 300][..]));
        assert_eq!(frames[2], (80, &b"third"[..]));
        assert_eq!(read_frames(&file[..whole + 5]).len(), 2);
        assert!(read_frames(b"").is_empty());
        assert!(read_frames(&[0xFF; 64]).is_empty());
    }

    #[test]
    fn a_frame_is_a_cluster_with_its_time_and_one_key_frame_block() {
        let c = frame(1234, &[9, 9, 9]);
        assert_eq!(&c[..4], &CLUSTER.to_be_bytes());
        assert_eq!(c[4] & 0x7F, (c.len() - 5) as u8);
        // Timestamp 1234 (two bytes), then the block: track 1, 0, key.
        assert_eq!(&c[5..9], &[0xE7, 0x82, 0x04, 0xD2]);
        assert_eq!(&c[9..], &[0xA3, 0x87, 0x81, 0, 0, 0x80, 9, 9, 9]);
    }
}
