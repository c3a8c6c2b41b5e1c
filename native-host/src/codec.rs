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
}
