/**
 * Puts String.prototype back into V8's fast mode after a dependency declared a class over it.
 *
 * ioredis declares `class VerbatimString extends String` (RESP3 verbatim strings). V8 turns the
 * prototype of a new class's parent into a dictionary-mode ("setup") object, and only a property
 * load that walks the chain from an *object* makes it fast again — loads on string primitives
 * (`s.indexOf`, `s.slice`, `s.charCodeAt`) never do. While it stays a dictionary, optimized code
 * cannot fold any string method load and calls the generic LoadIC for each one: in the router's
 * head parsers that was ~1 µs per proxied request (perf: `Builtins_LoadIC` 4.7 % of the process,
 * more than the parsers' own code), and a string-method loop runs 2.5× slower in a plain node.
 * Access through an object that inherits from String.prototype runs the step an object
 * receiver's IC does, and the prototype stays fast afterwards.
 */
export function restoreFastStringPrototype(): void {
  // A store through such an object makes the chain fast at once; so does a load, but only once
  // its function has a feedback vector (V8 allocates one after 8 calls): both, for either V8.
  const viaObject = Object.create(String.prototype) as { fastModeProbe?: number; indexOf?: unknown };
  viaObject.fastModeProbe = 1;
  for (let i = 0; i < 16; i++) loadThrough(viaObject);
}

function loadThrough(o: { indexOf?: unknown }): unknown {
  return o.indexOf;
}
