import { z } from 'zod';
import { says } from '../validate/reasons.ts';
import { PACKAGE_MAIN_PATTERN, PACKAGE_SHA256_PATTERN } from '../validate/rules/package-rules.ts';

export { PACKAGE_MAIN_PATTERN, PACKAGE_SHA256_PATTERN } from '../validate/rules/package-rules.ts';

/**
 * `spec.template.source.package`: code with dependencies, as Fission's Package and builder
 * (docs/packages.md). The source is a gzip'd tar archive of a folder — a Node package with
 * `package.json` (and its lock file) or a Python folder with `requirements.txt` — addressed by
 * the SHA-256 of the archive. The platform builds it once per (archive, builder): it installs
 * the dependencies into a content-addressed built package that every worker of every revision
 * with the same archive loads. A build's outcome shows in `status.build`.
 */
export const PackageSourceSchema = z.object({
  /** SHA-256 of the archive's bytes, 64 lower-case hex digits: what builds are keyed by and what every copy is checked against. */
  sha256: z.string().regex(PACKAGE_SHA256_PATTERN, says('package_sha256')),
  /**
   * An http(s) URL to fetch the archive from (checked against sha256). Absent: the platform's
   * package store — on Kubernetes the ConfigMap `orrery-package-<first 20 hex of sha256>` in the
   * Function's namespace (key `package.tgz`, binaryData), on the local platform the archive
   * `orrery deploy --code DIR` uploaded.
   */
  url: z.string().max(2048, says('package_url')).regex(/^https?:\/\/\S+$/, says('package_url')).optional(),
  /**
   * The module to load, relative to the package root. Absent: package.json's "main", else
   * index.mjs, index.js (Node); main.py (Python).
   */
  main: z.string().max(255, says('package_main')).regex(PACKAGE_MAIN_PATTERN, says('package_main')).optional(),
});
export type PackageSource = z.infer<typeof PackageSourceSchema>;

/**
 * A build's phase: `Pending` (waiting for the archive or a builder), `Building`, `Succeeded`
 * (workers may start), `Failed` (reason and the log's tail say why; a new archive or a changed
 * builder builds again).
 */
export const BUILD_PHASES = ['Pending', 'Building', 'Succeeded', 'Failed'] as const;
export type BuildPhase = (typeof BUILD_PHASES)[number];

/**
 * Why a build is where it is, stable codes the console and automation key on:
 * `ArchiveMissing` (no archive in the store or at the URL yet), `ArchiveInvalid` (sha256 mismatch,
 * not a gzip'd tar, an entry escaping the folder, over a size limit), `DependenciesFailed` (npm or
 * pip exited non-zero), `MainMissing` (the module to load is not in the package), `BuildTimeout`,
 * `Built`.
 */
export const BUILD_REASONS = ['ArchiveMissing', 'ArchiveInvalid', 'DependenciesFailed', 'MainMissing', 'BuildTimeout', 'Built', 'Building', 'Queued'] as const;
export type BuildReason = (typeof BUILD_REASONS)[number];

/** Longest build log tail kept in status (bytes). */
export const MAX_BUILD_LOG_BYTES = 4096;

/** `status.build`: the build of the package the current template names (absent for inline, configMapRef and url sources). */
export const BuildStatusSchema = z.object({
  /** The archive's SHA-256 (spec.template.source.package.sha256). */
  sha256: z.string(),
  /** The built package's content address: a hash of the archive's sha256 and the builder that built it. */
  key: z.string(),
  /** What built it: `node` (npm) or `python` (pip), with the builder's image. */
  builder: z.string(),
  phase: z.enum(BUILD_PHASES),
  reason: z.enum(BUILD_REASONS),
  message: z.string().optional(),
  /** RFC 3339. */
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** Dependencies the build installed (top-level and transitive). */
  dependencies: z.number().int().nonnegative().optional(),
  /** Size of the built package on disk. */
  sizeBytes: z.number().int().nonnegative().optional(),
  /** The last MAX_BUILD_LOG_BYTES of npm's or pip's output (builds get no Secret, so no secret can be in it). */
  log: z.string().max(MAX_BUILD_LOG_BYTES).optional(),
});
export type BuildStatus = z.infer<typeof BuildStatusSchema>;
