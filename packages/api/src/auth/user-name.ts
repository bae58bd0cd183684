/** User names: 1-64 letters, digits and . _ @ - (the same rule for the users file and upsertUser). */
export const USER_NAME = /^[a-zA-Z0-9._@-]{1,64}$/;
