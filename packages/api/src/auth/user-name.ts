/** User names: 1-64 letters, digits and . _ @ - (the same rule for the users file and upsertUser). */
export const USER_NAME = /^[a-zA-Z0-9._@-]{1,64}$/;

/** The `who` of sessions made with the admin token: no user may take this name. */
export const ADMIN_TOKEN_WHO = 'admin-token';
