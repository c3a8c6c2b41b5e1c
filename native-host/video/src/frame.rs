//! A screencast's JPEG frame as a VP8 key frame: decoded to RGB, then
//! encoded by libwebp's lossy encoder, whose output (a WebP image's
//! `VP8 ` chunk) is a VP8 key frame as a WebM video track carries it.
//! Every frame is a key frame: the video is larger than one with frames
//! between key frames, but any frame decodes alone, so a file cut short
//! loses nothing before its cut, and no VP8 encoder but libwebp's is
//! needed.

use crate::VideoError;
use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

/// The largest frame side taken, in pixels (a screencast's frames are
/// bounded by what the daemon asks for; this bounds a frame's memory).
pub const MAX_SIDE: u32 = 4096;

/// One encoded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vp8Frame {
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The VP8 key frame.
    pub data: Vec<u8>,
}

/// Encodes `jpeg` at libwebp's `quality` (0–100) with its fastest method.
pub fn encode(jpeg: &[u8], quality: f32) -> Result<Vp8Frame, VideoError> {
    let options = DecoderOptions::default()
        .jpeg_set_out_colorspace(ColorSpace::RGB)
        .set_max_width(MAX_SIDE as usize)
        .set_max_height(MAX_SIDE as usize);
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(jpeg), options);
    let rgb = decoder
        .decode()
        .map_err(|e| VideoError::Frame(format!("the JPEG does not decode: {e:?}")))?;
    let (w, h) = decoder
        .dimensions()
        .ok_or_else(|| VideoError::Frame("the JPEG has no size".to_owned()))?;
    let (width, height) = (w as u32, h as u32);
    if width == 0 || height == 0 || rgb.len() != w * h * 3 {
        return Err(VideoError::Frame(format!(
            "a {width}×{height} JPEG decoded to {} bytes",
            rgb.len()
        )));
    }
    let mut config = webp::WebPConfig::new()
        .map_err(|()| VideoError::Frame("libwebp refused its own defaults".to_owned()))?;
    config.quality = quality.clamp(0.0, 100.0);
    config.method = 0;
    let webp = webp::Encoder::from_rgb(&rgb, width, height)
        .encode_advanced(&config)
        .map_err(|e| VideoError::Frame(format!("libwebp: {e:?}")))?;
    let data = vp8_chunk(&webp)
        .ok_or_else(|| VideoError::Frame("libwebp wrote no VP8 chunk".to_owned()))?
        .to_vec();
    Ok(Vp8Frame {
        width,
        height,
        data,
    })
}

/// The `VP8 ` chunk's payload of a WebP file: `RIFF`, its size, `WEBP`,
/// then chunks (a four-letter tag, a little-endian size, the payload
/// padded to even length).
pub fn vp8_chunk(webp: &[u8]) -> Option<&[u8]> {
    if webp.len() < 12 || &webp[..4] != b"RIFF" || &webp[8..12] != b"WEBP" {
        return None;
    }
    let mut at = 12;
    while at + 8 <= webp.len() {
        let tag = &webp[at..at + 4];
        let len = u32::from_le_bytes(webp[at + 4..at + 8].try_into().ok()?) as usize;
        let body = webp.get(at + 8..at + 8 + len)?;
        if tag == b"VP8 " {
            return Some(body);
        }
        at += 8 + len + (len & 1);
    }
    None
}

/// A VP8 key frame decoded (by libwebp, as the image of a WebP file):
/// its width, height and RGB pixels, row by row. For reading a video
/// back.
pub fn decode(vp8: &[u8]) -> Option<(u32, u32, Vec<u8>)> {
    let len = u32::try_from(vp8.len()).ok()?;
    let padded = len + (len & 1);
    let mut webp = Vec::with_capacity(vp8.len() + 21);
    webp.extend_from_slice(b"RIFF");
    webp.extend_from_slice(&(padded + 12).to_le_bytes());
    webp.extend_from_slice(b"WEBPVP8 ");
    webp.extend_from_slice(&len.to_le_bytes());
    webp.extend_from_slice(vp8);
    if len & 1 == 1 {
        webp.push(0);
    }
    let image = webp::Decoder::new(&webp).decode()?;
    let (w, h) = (image.width(), image.height());
    let rgb: Vec<u8> = if image.is_alpha() {
        image
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect()
    } else {
        image.to_vec()
    };
    Some((w, h, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Jpeg)
            .expect("a JPEG");
        out.into_inner()
    }

    #[test]
    fn a_jpeg_becomes_a_vp8_key_frame_of_its_size() {
        let frame = encode(&jpeg(320, 200), 60.0).expect("encoded");
        assert_eq!((frame.width, frame.height), (320, 200));
        // A VP8 key frame: bit 0 of its tag clear, then the start code and
        // the 14-bit width and height.
        assert_eq!(frame.data[0] & 1, 0);
        assert_eq!(&frame.data[3..6], &[0x9D, 0x01, 0x2A]);
        let w = u16::from_le_bytes([frame.data[6], frame.data[7]]) & 0x3FFF;
        let h = u16::from_le_bytes([frame.data[8], frame.data[9]]) & 0x3FFF;
        assert_eq!((w, h), (320, 200));
    }

    #[test]
    fn a_frame_decodes_back_to_about_its_pixels() {
        let frame = encode(&jpeg(64, 48), 90.0).expect("encoded");
        let (w, h, rgb) = decode(&frame.data).expect("decoded");
        assert_eq!((w, h, rgb.len()), (64, 48, 64 * 48 * 3));
        // The pixel at (40, 20) was (40, 20, 128).
        let p = &rgb[(20 * 64 + 40) * 3..][..3];
        for (got, want) in p.iter().zip([40u8, 20, 128]) {
            assert!(got.abs_diff(want) < 24, "{p:?}");
        }
        assert_eq!(decode(b"not vp8"), None);
    }

    #[test]
    fn what_is_not_a_jpeg_is_refused_with_a_reason() {
        for bad in [&b""[..], b"not a jpeg", &[0xFF, 0xD8, 0xFF, 0xE0, 0, 16]] {
            match encode(bad, 60.0) {
                Err(VideoError::Frame(why)) => assert!(!why.is_empty()),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_webp_without_a_vp8_chunk_has_none() {
        assert_eq!(vp8_chunk(b"RIFF\x04\0\0\0WEBP"), None);
        assert_eq!(vp8_chunk(b"RIFF\x10\0\0\0WEBPVP8L\x02\0\0\0ab"), None);
        assert_eq!(
            vp8_chunk(b"RIFF\x10\0\0\0WEBPVP8X\x01\0\0\0a\0VP8 \x02\0\0\0xy"),
            Some(&b"xy"[..])
        );
        assert_eq!(vp8_chunk(b"RIFF\x10\0\0\0WEBPVP8 \x09\0\0\0xy"), None);
    }
}
