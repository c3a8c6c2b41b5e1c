//! Fuzz target: NativeCodec over arbitrary bytes with small limits, whole and chunked, then the daemon's ExtensionToHost decoding of each frame.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cotab_fuzz::native_frame(data));
