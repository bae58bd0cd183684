/**
 * postgres.js 3.4.9: its pool keeps idle connections in a `Queue` whose array was emptied only
 * when every entry had been taken. A pool with more connections than queries in flight never
 * takes them all, so the array grew by one slot per query for the life of the process (~8 bytes
 * each; docs/performance.md, memory, "postgres.js 3.4.9's pool"). The fix compacts it once 1 024
 * slots have been taken. Upstream 3.4.10 has the same queue; 4.x replaces the pool.
 */
const FIND = `      } else {
        xs[index - 1] = undefined
      }`;

const REPLACE = `      } else {
        xs[index - 1] = undefined
        // Orrery patch: a pool with more connections than queries in flight never takes every idle
        // connection, so without this the array grew by one slot per query for as long as it ran.
        if (index >= 1024) {
          xs = xs.slice(index)
          index = 0
        }
      }`;

export default {
  package: 'postgres',
  versions: ['3.4.9'],
  // The ES module, the CommonJS build and the Cloudflare build each carry a copy.
  files: ['src/queue.js', 'cjs/src/queue.js', 'cf/src/queue.js'],
  find: FIND,
  replace: REPLACE,
};
