//! Fuzz target: LineCodec, decode_line and Call::parse over arbitrary bytes, whole and chunked, as the daemon reads agent.sock.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cotab_fuzz::controller_line(data));
