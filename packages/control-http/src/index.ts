export * from './json-body.ts';
export * from './send-json.ts';
export * from './post-json.ts';
export * from './route-table.ts';
export * from './request-url.ts';
export * from './refuse-rest-of-body.ts';
