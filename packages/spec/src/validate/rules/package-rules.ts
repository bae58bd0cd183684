/** An archive's SHA-256 as it is written everywhere in Orrery: 64 lower-case hex digits. */
export const PACKAGE_SHA256_PATTERN = /^[0-9a-f]{64}$/;

/**
 * `package.main`: a relative path inside the package — segments of letters, digits, ".", "_" and
 * "-" that do not start with "." (so no ".." and no hidden files), joined by "/"; no leading "/".
 */
export const PACKAGE_MAIN_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
