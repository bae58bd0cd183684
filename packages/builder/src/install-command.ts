import type { BuilderRuntime } from './builder-for-runtime.ts';

/** What the package folder holds that decides how dependencies are installed. */
export interface PackageLayout {
  hasPackageJson: boolean;
  hasLockFile: boolean;
  hasRequirements: boolean;
  hasVendor: boolean;
}

/** A command to run in the package folder, without a shell. */
export interface InstallCommand {
  file: string;
  args: string[];
}

/**
 * How to install a package's dependencies, or undefined when it declares none. npm never runs
 * install scripts (--ignore-scripts): a dependency's postinstall would otherwise run arbitrary
 * code on the builder. pip installs into `.python-packages` and, with a vendor/ folder, only from
 * it (--no-index), so a build needs no network.
 */
export function installCommand(runtime: BuilderRuntime, layout: PackageLayout, tools: { npm: string; python: string }): InstallCommand | undefined {
  if (runtime === 'node') {
    if (!layout.hasPackageJson) return undefined;
    return {
      file: tools.npm,
      args: [layout.hasLockFile ? 'ci' : 'install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=warn'],
    };
  }
  if (!layout.hasRequirements) return undefined;
  return {
    file: tools.python,
    args: [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '--no-cache-dir',
      '--no-build-isolation',
      '--target',
      '.python-packages',
      ...(layout.hasVendor ? ['--no-index', '--find-links', 'vendor'] : []),
      '-r',
      'requirements.txt',
    ],
  };
}

/**
 * The module a package loads: the spec's main, else package.json's "main", else index.mjs or
 * index.js (Node); main.py (Python). `exists` says which files the package holds.
 */
export function defaultMain(runtime: BuilderRuntime, exists: (path: string) => boolean, packageJsonMain?: string): string {
  if (runtime === 'python') return 'main.py';
  if (packageJsonMain) return packageJsonMain.replace(/^\.\//, '');
  return exists('index.mjs') ? 'index.mjs' : 'index.js';
}
