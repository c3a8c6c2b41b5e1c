//! The bodies of cotab's fuzz targets, one function per target in
//! `fuzz_targets/`, so they can also run without libFuzzer (for instance
//! over a corpus directory from a test).
//!
//! Each target checks more than "no panic": the codecs must cut the same
//! items whatever the read sizes, frames and lines must respect their
//! limits, decode errors must map to JSON-RPC codes, and every message a
//! deserialiser accepts must serialise and read back to the same value.

use cotab_host::codec::{LineCodec, NativeCodec};
use cotab_shared::controller::{
    decode_line, Call, Notification, Response, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    PARSE_ERROR,
};
use cotab_shared::native::{ExtensionToHost, HostToExtension};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// Items up to the first error (`None` stands for the error).
type Items = Vec<Option<Vec<u8>>>;

/// Feeds `data` in reads of `chunk` bytes (all at once for `None`) as
/// `FramedRead` does: decode until nothing comes after each read, then
/// `decode_eof`.
fn run<D: Decoder<Item = BytesMut>>(mut codec: D, data: &[u8], chunk: Option<usize>) -> Items {
    let mut src = BytesMut::new();
    let mut out = Vec::new();
    let chunk = chunk.unwrap_or(data.len()).max(1);
    for read in data.chunks(chunk) {
        src.extend_from_slice(read);
        loop {
            match codec.decode(&mut src) {
                Ok(Some(item)) => out.push(Some(item.to_vec())),
                Ok(None) => break,
                Err(_) => {
                    out.push(None);
                    return out;
                }
            }
        }
    }
    loop {
        match codec.decode_eof(&mut src) {
            Ok(Some(item)) => out.push(Some(item.to_vec())),
            Ok(None) => return out,
            Err(_) => {
                out.push(None);
                return out;
            }
        }
    }
}

/// A deserialiser fed `bytes`: anything it accepts must serialise and
/// read back to the same value (through `Value`, which is exact for
/// numbers).
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(bytes: &[u8]) {
    let Ok(msg) = serde_json::from_slice::<T>(bytes) else {
        return;
    };
    let value = serde_json::to_value(&msg).expect("an accepted message serialises");
    let back: T = serde_json::from_value(value).expect("a serialised message reads back");
    assert_eq!(back, msg);
    let text = serde_json::to_vec(&msg).expect("an accepted message serialises");
    serde_json::from_slice::<T>(&text).expect("its text reads back");
}

/// First byte: the limit (low 6 bits, 1..=64), skip mode (bit 6), one
/// byte per read (bit 7, else reads of 7 bytes). The rest: the stream.
pub fn native_frame(data: &[u8]) {
    let Some((&ctl, stream)) = data.split_first() else {
        return;
    };
    let max = usize::from(ctl & 0x3f) + 1;
    let codec = || {
        let c = NativeCodec::new(max, max);
        if ctl & 0x40 != 0 {
            c.skip_oversize()
        } else {
            c
        }
    };
    let whole = run(codec(), stream, None);
    let chunked = run(codec(), stream, Some(if ctl & 0x80 != 0 { 1 } else { 7 }));
    assert_eq!(whole, chunked, "the reads changed what was decoded");
    for frame in whole.iter().flatten() {
        assert!(
            (1..=max).contains(&frame.len()),
            "frame of {} bytes",
            frame.len()
        );
        // What the daemon does with each frame from the browser.
        round_trip::<ExtensionToHost>(frame);
    }
}

/// First byte: a small line limit (low 6 bits) or 1 MiB (bit 6), one
/// byte per read (bit 7, else reads of 5 bytes). The rest: the stream.
pub fn controller_line(data: &[u8]) {
    let Some((&ctl, stream)) = data.split_first() else {
        return;
    };
    let max = if ctl & 0x40 != 0 {
        cotab_shared::limits::MAX_CONTROLLER_LINE
    } else {
        usize::from(ctl & 0x3f)
    };
    let whole = run(LineCodec::new(max), stream, None);
    let chunked = run(
        LineCodec::new(max),
        stream,
        Some(if ctl & 0x80 != 0 { 1 } else { 5 }),
    );
    assert_eq!(whole, chunked, "the reads changed what was decoded");
    for line in whole.iter().flatten() {
        assert!(line.len() <= max && !line.contains(&b'\n'));
        // What the daemon does with each line (`agent::handle_line`).
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        let err = match decode_line(text) {
            Ok(env) => match Call::parse(&env.method, env.params) {
                Ok(call) => {
                    assert!(Call::METHODS.contains(&call.method()));
                    continue;
                }
                Err(e) => e,
            },
            Err((_, e)) => e,
        };
        assert!(
            [
                PARSE_ERROR,
                INVALID_REQUEST,
                METHOD_NOT_FOUND,
                INVALID_PARAMS
            ]
            .contains(&err.code),
            "{err:?}"
        );
    }
}

/// Arbitrary bytes into [`HostToExtension`].
pub fn host_to_extension(data: &[u8]) {
    round_trip::<HostToExtension>(data);
}

/// Arbitrary bytes into [`ExtensionToHost`].
pub fn extension_to_host(data: &[u8]) {
    round_trip::<ExtensionToHost>(data);
}

/// Arbitrary bytes into a controller [`Response`].
pub fn controller_response(data: &[u8]) {
    round_trip::<Response>(data);
}

/// Arbitrary bytes into a controller [`Notification`].
pub fn controller_notification(data: &[u8]) {
    round_trip::<Notification>(data);
}
