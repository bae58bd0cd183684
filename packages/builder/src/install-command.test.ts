import { describe, expect, it } from 'vitest';
import { defaultMain, installCommand, type PackageLayout } from './install-command.ts';

const tools = { npm: '/n/npm', python: '/usr/bin/python3' };
const none: PackageLayout = { hasPackageJson: false, hasLockFile: false, hasRequirements: false, hasVendor: false };

describe('installCommand', () => {
  it('runs npm ci with a lock file, npm install without, never install scripts', () => {
    const ci = installCommand('node', { ...none, hasPackageJson: true, hasLockFile: true }, tools)!;
    const install = installCommand('node', { ...none, hasPackageJson: true }, tools)!;
    expect(ci.file).toBe('/n/npm');
    expect(ci.args[0]).toBe('ci');
    expect(install.args[0]).toBe('install');
    for (const c of [ci, install]) expect(c.args).toEqual(expect.arrayContaining(['--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund']));
  });

  it('installs requirements into .python-packages, only from vendor/ when there is one', () => {
    const online = installCommand('python', { ...none, hasRequirements: true }, tools)!;
    const vendored = installCommand('python', { ...none, hasRequirements: true, hasVendor: true }, tools)!;
    expect(online.file).toBe('/usr/bin/python3');
    expect(online.args.join(' ')).toContain('-m pip install');
    expect(online.args.join(' ')).toContain('--target .python-packages');
    expect(online.args).not.toContain('--no-index');
    expect(vendored.args.join(' ')).toContain('--no-index --find-links vendor');
    expect(vendored.args.slice(-2)).toEqual(['-r', 'requirements.txt']);
  });

  it('has nothing to run when the package declares no dependencies', () => {
    expect(installCommand('node', { ...none, hasRequirements: true }, tools)).toBeUndefined();
    expect(installCommand('python', { ...none, hasPackageJson: true }, tools)).toBeUndefined();
  });
});

describe('defaultMain', () => {
  it('prefers package.json main, then index.mjs, then index.js for Node; main.py for Python', () => {
    expect(defaultMain('node', () => true, './lib/handler.js')).toBe('lib/handler.js');
    expect(defaultMain('node', (p) => p === 'index.mjs')).toBe('index.mjs');
    expect(defaultMain('node', () => false)).toBe('index.js');
    expect(defaultMain('python', () => true, 'x.js')).toBe('main.py');
  });
});
