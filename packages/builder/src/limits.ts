/** Caps on archives, so a hostile or mistaken package cannot fill the disk or the memory. */
export const PACKAGE_LIMITS = {
  /** Largest archive (compressed) accepted anywhere. */
  maxArchiveBytes: 64 * 1024 * 1024,
  /** Largest total of the extracted files. */
  maxExtractedBytes: 256 * 1024 * 1024,
  /** Most entries (files and folders) in one archive. */
  maxEntries: 20_000,
  /** Longest entry path. */
  maxPathLength: 255,
} as const;
export type PackageLimits = { [K in keyof typeof PACKAGE_LIMITS]: number };

/** A package that breaks a rule: `code` is stable, `message` says what to do. */
export class PackageError extends Error {
  constructor(
    readonly code: 'archive_invalid' | 'package_too_large' | 'folder_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'PackageError';
  }
}
