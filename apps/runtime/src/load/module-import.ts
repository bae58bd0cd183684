/**
 * `import()` of a function's module file (and of tsx's loader API). The local backend starts the runtime as a CommonJS body
 * compiled from V8's code cache (apps/runtime/boot/code-cached-boot.mjs): in Node 20, code
 * compiled from a cache has no dynamic-import callback, so an `import()` in it fails. The boot
 * then lends its own `import()` under this symbol; everywhere else (the ESM bundle, tsx, tests)
 * the runtime imports by itself.
 */
const BOOT_IMPORT = Symbol.for('orrery.runtime.import');

type Importer = (specifier: string) => Promise<Record<string, unknown>>;

export function importModule(specifier: string): Promise<Record<string, unknown>> {
  const lent = (globalThis as Record<symbol, unknown>)[BOOT_IMPORT] as Importer | undefined;
  return lent ? lent(specifier) : (import(specifier) as Promise<Record<string, unknown>>);
}
