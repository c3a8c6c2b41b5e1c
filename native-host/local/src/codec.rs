//! Bytes ↔ frames for both links: the native-messaging length-prefixed
//! frame ([`NativeCodec`]) and the controller's newline-delimited lines
//! ([`LineCodec`]).
//!
//! The codecs only cut and glue bytes and enforce sizes; what a frame or a
//! line means is `cotab_shared`'s business. The header format itself lives
//! in `cotab_shared::native` ([`frame_len`], [`encode_frame`]), so the
//! extension and the host can never disagree on it.

use cotab_shared::native::{encode_frame, frame_len, FrameError};
use tokio_util::bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// Why the native codec stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NativeCodecError {
    /// A frame broke the size rules of its direction.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The underlying stream failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The native-messaging frame codec: 4-byte native-endian length + payload.
///
/// Decoded items are payloads (the JSON bytes, not parsed). Each direction
/// has its own limit. By default an oversize incoming frame is an error
/// (the stream is then unusable); [`NativeCodec::skip_oversize`] instead
/// drops such frames and counts them, which the relay uses on the daemon →
/// browser side so one bad frame never reaches the browser and never kills
/// the lane.
#[derive(Debug, Clone)]
pub struct NativeCodec {
    max_in: usize,
    max_out: usize,
    skip_oversize: bool,
    /// Bytes of an oversize frame still to discard.
    skipping: usize,
    skipped: u64,
}

impl NativeCodec {
    /// A codec accepting frames up to `max_in` bytes and writing frames up
    /// to `max_out` bytes.
    pub fn new(max_in: usize, max_out: usize) -> Self {
        NativeCodec {
            max_in,
            max_out,
            skip_oversize: false,
            skipping: 0,
            skipped: 0,
        }
    }

    /// Drops oversize incoming frames instead of failing.
    pub fn skip_oversize(mut self) -> Self {
        self.skip_oversize = true;
        self
    }

    /// How many oversize frames were dropped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

impl Decoder for NativeCodec {
    type Item = BytesMut;
    type Error = NativeCodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, NativeCodecError> {
        loop {
            if self.skipping > 0 {
                let n = self.skipping.min(src.len());
                src.advance(n);
                self.skipping -= n;
                if self.skipping > 0 {
                    return Ok(None);
                }
            }
            if src.len() < 4 {
                src.reserve(4 - src.len());
                return Ok(None);
            }
            let header = [src[0], src[1], src[2], src[3]];
            let len = match frame_len(header, self.max_in) {
                Ok(len) => len,
                Err(FrameError::TooLarge { len, limit }) if self.skip_oversize => {
                    tracing::warn!(len, limit, "dropped an oversize native message");
                    src.advance(4);
                    self.skipping = len;
                    self.skipped += 1;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if src.len() < 4 + len {
                // Reserve only what this frame needs; `len` is already
                // bounded by the limit.
                src.reserve(4 + len - src.len());
                return Ok(None);
            }
            src.advance(4);
            return Ok(Some(src.split_to(len)));
        }
    }
}

impl<T: AsRef<[u8]>> Encoder<T> for NativeCodec {
    type Error = NativeCodecError;

    fn encode(&mut self, item: T, dst: &mut BytesMut) -> Result<(), NativeCodecError> {
        let frame = encode_frame(item.as_ref(), self.max_out)?;
        dst.put_slice(&frame);
        Ok(())
    }
}

/// Why the line codec stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LineCodecError {
    /// A line grew past the limit before its newline.
    #[error("line too long")]
    TooLong,
    /// The underlying stream failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// NDJSON lines with a maximum length (without the newline). Items are raw
/// bytes so invalid UTF-8 becomes a JSON-RPC parse error upstream rather
/// than a dead connection. A trailing `\r` is dropped.
#[derive(Debug, Clone)]
pub struct LineCodec {
    max: usize,
    /// Bytes already searched for a newline.
    scanned: usize,
}

impl LineCodec {
    /// A codec refusing lines longer than `max` bytes.
    pub fn new(max: usize) -> Self {
        LineCodec { max, scanned: 0 }
    }
}

impl Decoder for LineCodec {
    type Item = BytesMut;
    type Error = LineCodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, LineCodecError> {
        let end = src.len().min(self.max + 2);
        match src[self.scanned..end].iter().position(|b| *b == b'\n') {
            Some(i) => {
                let pos = self.scanned + i;
                self.scanned = 0;
                let mut line = src.split_to(pos + 1);
                line.truncate(pos);
                if line.last() == Some(&b'\r') {
                    line.truncate(pos - 1);
                }
                if line.len() > self.max {
                    return Err(LineCodecError::TooLong);
                }
                Ok(Some(line))
            }
            None if src.len() > self.max + 1 => Err(LineCodecError::TooLong),
            None => {
                self.scanned = end;
                Ok(None)
            }
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, LineCodecError> {
        match self.decode(src)? {
            Some(line) => Ok(Some(line)),
            None if src.is_empty() => Ok(None),
            None => {
                // A last line without newline still counts.
                self.scanned = 0;
                let line = src.split();
                if line.len() > self.max {
                    return Err(LineCodecError::TooLong);
                }
                Ok(Some(line))
            }
        }
    }
}

impl Encoder<Bytes> for LineCodec {
    type Error = LineCodecError;

    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), LineCodecError> {
        dst.reserve(item.len() + 1);
        dst.put_slice(&item);
        dst.put_u8(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame(len: u32, body: &[u8]) -> BytesMut {
        let mut b = BytesMut::new();
        b.put_slice(&len.to_ne_bytes());
        b.put_slice(body);
        b
    }

    #[test]
    fn length_zero_is_refused() {
        let mut c = NativeCodec::new(10, 10);
        assert!(matches!(
            c.decode(&mut frame(0, b"")),
            Err(NativeCodecError::Frame(FrameError::Empty))
        ));
    }

    #[test]
    fn exactly_the_limit_passes_and_one_more_fails() {
        let mut c = NativeCodec::new(10, 10);
        let got = c
            .decode(&mut frame(10, &[b'x'; 10]))
            .expect("ok")
            .expect("frame");
        assert_eq!(&got[..], &[b'x'; 10]);
        assert!(matches!(
            c.decode(&mut frame(11, &[b'x'; 11])),
            Err(NativeCodecError::Frame(FrameError::TooLarge {
                len: 11,
                limit: 10
            }))
        ));
        let mut out = BytesMut::new();
        assert!(c.encode(vec![b'y'; 10], &mut out).is_ok());
        assert_eq!(out.len(), 14);
        assert!(c.encode(vec![b'y'; 11], &mut out).is_err());
    }

    #[test]
    fn huge_header_fails_without_allocating() {
        let mut c = NativeCodec::new(16 * 1024 * 1024, 10);
        let mut src = frame(u32::MAX, b"");
        assert!(c.decode(&mut src).is_err());
        assert!(src.capacity() < 1024);
    }

    #[test]
    fn truncated_header_and_body_wait_for_more() {
        let mut c = NativeCodec::new(10, 10);
        let mut src = BytesMut::from(&3u32.to_ne_bytes()[..2]);
        assert!(c.decode(&mut src).expect("ok").is_none());
        let mut src = frame(3, b"ab");
        assert!(c.decode(&mut src).expect("ok").is_none());
        src.put_u8(b'c');
        assert_eq!(&c.decode(&mut src).expect("ok").expect("frame")[..], b"abc");
    }

    #[test]
    fn one_byte_per_read() {
        let mut c = NativeCodec::new(100, 100);
        let mut all = frame(5, b"hello");
        all.extend_from_slice(&frame(2, b"{}"));
        let mut src = BytesMut::new();
        let mut got = Vec::new();
        for b in all.iter() {
            src.put_u8(*b);
            while let Some(f) = c.decode(&mut src).expect("ok") {
                got.push(f.to_vec());
            }
        }
        assert_eq!(got, vec![b"hello".to_vec(), b"{}".to_vec()]);
    }

    #[test]
    fn skip_mode_drops_oversize_frames_and_keeps_going() {
        let mut c = NativeCodec::new(4, 4).skip_oversize();
        let mut all = frame(6, b"toobig");
        all.extend_from_slice(&frame(2, b"ok"));
        let mut src = BytesMut::new();
        let mut got = Vec::new();
        for b in all.iter() {
            src.put_u8(*b);
            while let Some(f) = c.decode(&mut src).expect("ok") {
                got.push(f.to_vec());
            }
        }
        assert_eq!(got, vec![b"ok".to_vec()]);
        assert_eq!(c.skipped(), 1);
    }

    #[test]
    fn lines_split_and_limit() {
        let mut c = LineCodec::new(5);
        let mut src = BytesMut::from(&b"abc\r\n12345\n"[..]);
        assert_eq!(&c.decode(&mut src).expect("ok").expect("line")[..], b"abc");
        assert_eq!(
            &c.decode(&mut src).expect("ok").expect("line")[..],
            b"12345"
        );
        let mut src = BytesMut::from(&b"123456\n"[..]);
        assert!(matches!(c.decode(&mut src), Err(LineCodecError::TooLong)));
        let mut c = LineCodec::new(5);
        let mut src = BytesMut::from(&b"1234567"[..]);
        assert!(matches!(c.decode(&mut src), Err(LineCodecError::TooLong)));
    }

    #[test]
    fn lines_byte_by_byte() {
        let mut c = LineCodec::new(100);
        let mut src = BytesMut::new();
        let mut got = Vec::new();
        for b in b"a\nbc\n\n".iter() {
            src.put_u8(*b);
            while let Some(l) = c.decode(&mut src).expect("ok") {
                got.push(l.to_vec());
            }
        }
        assert_eq!(got, vec![b"a".to_vec(), b"bc".to_vec(), b"".to_vec()]);
    }

    #[test]
    fn truncated_header_or_body_at_eof_is_an_error() {
        let mut c = NativeCodec::new(10, 10);
        let mut src = BytesMut::from(&3u32.to_ne_bytes()[..2]);
        assert!(matches!(
            c.decode_eof(&mut src),
            Err(NativeCodecError::Io(_))
        ));
        let mut src = frame(3, b"ab");
        assert!(matches!(
            c.decode_eof(&mut src),
            Err(NativeCodecError::Io(_))
        ));
    }

    #[test]
    fn huge_header_in_skip_mode_swallows_the_rest_without_allocating() {
        let mut c = NativeCodec::new(10, 10).skip_oversize();
        let mut src = frame(u32::MAX, &[b'x'; 100]);
        assert!(c
            .decode(&mut src)
            .expect("skipping is not an error")
            .is_none());
        assert!(src.is_empty());
        assert!(src.capacity() < 1024);
        assert_eq!(c.skipped(), 1);
    }

    #[test]
    fn invalid_utf8_is_passed_up_unchanged() {
        // Bytes are the codecs' whole business: the layer above turns
        // invalid UTF-8 into a typed parse error.
        let mut c = NativeCodec::new(10, 10);
        let got = c
            .decode(&mut frame(2, b"\xff\xfe"))
            .expect("ok")
            .expect("frame");
        assert_eq!(&got[..], b"\xff\xfe");
        let mut c = LineCodec::new(10);
        let mut src = BytesMut::from(&b"\xc3\x28\n"[..]);
        assert_eq!(
            &c.decode(&mut src).expect("ok").expect("line")[..],
            b"\xc3\x28"
        );
    }

    #[test]
    fn lines_at_exactly_the_limit_pass_and_one_more_fails_with_or_without_newline() {
        let mut c = LineCodec::new(5);
        let mut src = BytesMut::from(&b"12345"[..]);
        assert!(c.decode(&mut src).expect("ok").is_none());
        assert_eq!(
            &c.decode_eof(&mut src).expect("ok").expect("line")[..],
            b"12345"
        );
        let mut c = LineCodec::new(5);
        let mut src = BytesMut::from(&b"123456"[..]);
        assert!(c.decode(&mut src).expect("ok").is_none());
        assert!(matches!(
            c.decode_eof(&mut src),
            Err(LineCodecError::TooLong)
        ));
        let mut c = LineCodec::new(5);
        let mut src = BytesMut::from(&b"12345\r\n"[..]);
        assert_eq!(
            &c.decode(&mut src).expect("ok").expect("line")[..],
            b"12345"
        );
    }

    /// What a codec produced, in order, up to its first error.
    #[derive(Debug, PartialEq)]
    enum Out {
        Item(Vec<u8>),
        Empty,
        TooLarge,
        TooLong,
        Trailing,
    }

    fn native_err(e: NativeCodecError) -> Out {
        match e {
            NativeCodecError::Frame(FrameError::Empty) => Out::Empty,
            NativeCodecError::Frame(FrameError::TooLarge { .. }) => Out::TooLarge,
            NativeCodecError::Frame(_) => unreachable!("no other frame error exists"),
            NativeCodecError::Io(_) => Out::Trailing,
        }
    }

    fn line_err(e: LineCodecError) -> Out {
        match e {
            LineCodecError::TooLong => Out::TooLong,
            LineCodecError::Io(_) => Out::Trailing,
        }
    }

    /// Cuts `data` into reads of the given sizes, cycled; one read when
    /// there are none.
    fn reads<'a>(data: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
        if sizes.is_empty() {
            return vec![data];
        }
        let mut out = Vec::new();
        let mut rest = data;
        for n in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (a, b) = rest.split_at((*n).min(rest.len()));
            out.push(a);
            rest = b;
        }
        out
    }

    /// Feeds `data` in reads as `FramedRead` does (decode until `None`
    /// after each read, `decode_eof` at the end) and collects the items up
    /// to the first error.
    fn run<D: Decoder<Item = BytesMut>>(
        mut codec: D,
        data: &[u8],
        sizes: &[usize],
        err: impl Fn(D::Error) -> Out,
    ) -> Vec<Out> {
        let mut src = BytesMut::new();
        let mut out = Vec::new();
        for read in reads(data, sizes) {
            src.extend_from_slice(read);
            loop {
                match codec.decode(&mut src) {
                    Ok(Some(item)) => out.push(Out::Item(item.to_vec())),
                    Ok(None) => break,
                    Err(e) => {
                        out.push(err(e));
                        return out;
                    }
                }
            }
        }
        loop {
            match codec.decode_eof(&mut src) {
                Ok(Some(item)) => out.push(Out::Item(item.to_vec())),
                Ok(None) => return out,
                Err(e) => {
                    out.push(err(e));
                    return out;
                }
            }
        }
    }

    /// The native framing, decoded from the whole input at once.
    fn native_model(data: &[u8], max: usize, skip: bool) -> Vec<Out> {
        let mut out = Vec::new();
        let mut rest = data;
        while !rest.is_empty() {
            let Some((header, body)) = rest.split_first_chunk::<4>() else {
                out.push(Out::Trailing);
                return out;
            };
            let len = u32::from_ne_bytes(*header) as usize;
            if len == 0 {
                out.push(Out::Empty);
                return out;
            }
            if len > max && skip {
                rest = &body[len.min(body.len())..];
                continue;
            }
            if len > max {
                out.push(Out::TooLarge);
                return out;
            }
            if body.len() < len {
                out.push(Out::Trailing);
                return out;
            }
            out.push(Out::Item(body[..len].to_vec()));
            rest = &body[len..];
        }
        out
    }

    /// NDJSON lines, split from the whole input at once: a trailing `\r`
    /// is dropped from terminated lines, a last unterminated line counts.
    fn line_model(data: &[u8], max: usize) -> Vec<Out> {
        let mut out = Vec::new();
        let mut parts: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
        let last = parts.pop().unwrap_or_default();
        for part in parts {
            let part = part.strip_suffix(b"\r").unwrap_or(part);
            if part.len() > max {
                out.push(Out::TooLong);
                return out;
            }
            out.push(Out::Item(part.to_vec()));
        }
        if last.len() > max {
            out.push(Out::TooLong);
        } else if !last.is_empty() {
            out.push(Out::Item(last.to_vec()));
        }
        out
    }

    fn sizes() -> impl Strategy<Value = Vec<usize>> {
        prop_oneof![
            Just(Vec::new()),
            Just(vec![1]),
            proptest::collection::vec(1usize..24, 1..16),
        ]
    }

    /// Bytes that often look like native frames with small lengths.
    fn native_bytes() -> impl Strategy<Value = Vec<u8>> {
        let chunk = prop_oneof![
            (0u32..40).prop_map(|n| n.to_ne_bytes().to_vec()),
            Just(u32::MAX.to_ne_bytes().to_vec()),
            proptest::collection::vec(any::<u8>(), 0..24),
        ];
        proptest::collection::vec(chunk, 0..8).prop_map(|c| c.concat())
    }

    /// Bytes with many newlines and carriage returns.
    fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'{'), any::<u8>()],
            0..200,
        )
    }

    proptest! {
        #[test]
        fn native_decoding_of_any_bytes_matches_the_model_under_any_chunking(
            data in native_bytes(),
            max in 1usize..48,
            skip in any::<bool>(),
            sizes in sizes(),
        ) {
            let codec = if skip {
                NativeCodec::new(max, max).skip_oversize()
            } else {
                NativeCodec::new(max, max)
            };
            prop_assert_eq!(run(codec, &data, &sizes, native_err), native_model(&data, max, skip));
        }

        #[test]
        fn native_frames_round_trip_under_any_chunking(
            payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..64), 0..8),
            sizes in sizes(),
        ) {
            let mut codec = NativeCodec::new(64, 64);
            let mut wire = BytesMut::new();
            for p in &payloads {
                codec.encode(p, &mut wire).expect("within the limit");
            }
            let want: Vec<Out> = payloads.into_iter().map(Out::Item).collect();
            prop_assert_eq!(run(codec, &wire, &sizes, native_err), want);
        }

        #[test]
        fn line_decoding_of_any_bytes_matches_the_model_under_any_chunking(
            data in line_bytes(),
            max in 0usize..40,
            sizes in sizes(),
        ) {
            prop_assert_eq!(run(LineCodec::new(max), &data, &sizes, line_err), line_model(&data, max));
        }

        #[test]
        fn lines_round_trip_under_any_chunking(
            lines in proptest::collection::vec("[^\n]{0,30}[^\r\n]", 0..8),
            sizes in sizes(),
        ) {
            let mut codec = LineCodec::new(256);
            let mut wire = BytesMut::new();
            for l in &lines {
                codec.encode(Bytes::from(l.clone()), &mut wire).expect("encodes");
            }
            let want: Vec<Out> = lines.into_iter().map(|l| Out::Item(l.into_bytes())).collect();
            prop_assert_eq!(run(codec, &wire, &sizes, line_err), want);
        }
    }
}
