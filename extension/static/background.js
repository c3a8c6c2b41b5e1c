// Service worker loader: instantiate the wasm synchronously (the bytes are
// embedded) so Rust registers every listener in the worker's first turn.
import { initSync, worker_main } from "./cotab_worker.js";
import { wasmBytes } from "./cotab_worker_wasm.js";

initSync({ module: wasmBytes });
worker_main();
