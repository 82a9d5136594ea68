import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
// installs the TinyGo runtime (`globalThis.Go`) and the shims sh-syntax's WASM needs
import 'sh-syntax';

/**
 * mvdan/sh (via sh-syntax's WASM) as the authority on what parses as Bash.
 * sh-syntax's own `parse` compiles and starts a fresh WASM instance per call
 * (milliseconds) and its JSON tree stops at statement spans, so the guard
 * keeps one instance and asks it only "does this parse?"; the tree it walks
 * comes from ./parser.ts. Buffers go through the module's malloc/free
 * because its `wasmAlloc` returns a slice header, not the bytes.
 */
export interface SyntaxValidator {
  /** null when the text parses as Bash, else mvdan's message. */
  check(text: string): string | null;
}

/** The slice of the WebAssembly API used here (the project's lib has no DOM types). */
interface WasmModule { readonly __wasmModule?: never }
interface WasmInstance { readonly exports: unknown }
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: unknown) => WasmInstance;
}
const WASM = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface ShExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  malloc(size: number): number;
  free(ptr: number): void;
  process(...args: (number | boolean)[]): number;
}

interface GoRuntime {
  readonly importObject: unknown;
  run(instance: WasmInstance): Promise<void>;
}

const LANG_BASH = 1;
const OK_TAIL = /"parseError":null,"message":""\}$/;
const OK_TAIL_BYTES = 64;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

let loading: Promise<SyntaxValidator> | null = null;

function start(module: WasmModule): ShExports {
  const Go = (globalThis as unknown as { Go: new () => GoRuntime }).Go;
  const go = new Go();
  const instance = new WASM.Instance(module, go.importObject);
  void go.run(instance);
  return instance.exports as unknown as ShExports;
}

function run(ex: ShExports, text: string): string | null {
  const bytes = encoder.encode(text);
  const ptr = ex.malloc(Math.max(1, bytes.byteLength));
  new Uint8Array(ex.memory.buffer).set(bytes, ptr);
  let result: number;
  try {
    // (filepath, text, print, keepComments, variant, stopAt, recoverErrors, printer options…) as sh-syntax 0.7 passes them
    result = ex.process(0, 0, 0, ptr, bytes.byteLength, bytes.byteLength, false, false, LANG_BASH, 0, 0, 0, 0, false, 2, true, true, true, false, false, false, false);
  } finally {
    ex.free(ptr);
  }
  const mem = new Uint8Array(ex.memory.buffer);
  const end = mem.indexOf(0, result);
  const stop = end < 0 ? mem.length : end;
  // the result ends with its error fields; only a failure needs the whole document
  if (OK_TAIL.test(decoder.decode(mem.subarray(Math.max(result, stop - OK_TAIL_BYTES), stop)))) return null;
  const json = JSON.parse(decoder.decode(mem.subarray(result, stop))) as { parseError?: { Text?: string } | null; message?: string };
  if (json.parseError) return json.message || json.parseError.Text || 'parse error';
  return json.message ? json.message : null;
}

async function create(): Promise<SyntaxValidator> {
  const wasmPath = createRequire(import.meta.url).resolve('sh-syntax/main.wasm');
  const module = await WASM.compile(await readFile(wasmPath));
  let ex: ShExports | null = null;
  return {
    check(text) {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          ex ??= start(module);
          return run(ex, text);
        } catch (e) {
          // a trapped instance is dropped; one retry on a fresh one, then fail closed
          ex = null;
          if (attempt === 1) return `shell parser failed: ${(e as Error).message}`;
        }
      }
      return 'shell parser failed';
    },
  };
}

/** The shared validator: compiled and started once per process. */
export function loadValidator(): Promise<SyntaxValidator> {
  loading ??= create().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}
