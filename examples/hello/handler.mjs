// The handler of the README's quickstart (`orrery deploy hello --code examples/hello/handler.mjs`):
// an ES module whose default export takes a Request (and ctx) and returns a Response.
export default () => Response.json({ hello: 'world' });
