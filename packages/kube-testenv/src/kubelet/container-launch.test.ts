import { describe, expect, it } from 'vitest';
import { launcherScript, type MountSpec, orderMounts, quote } from './container-launch.ts';

const m = (target: string, o: Partial<MountSpec> = {}): MountSpec => ({ source: `/src${target}`, target, readOnly: false, file: false, ...o });

describe('orderMounts', () => {
  it('puts parents before children, keeping the order otherwise', () => {
    expect(orderMounts([m('/tmp/a/b'), m('/etc/hosts'), m('/tmp'), m('/data')]).map((x) => x.target)).toEqual(['/tmp', '/data', '/etc/hosts', '/tmp/a/b']);
  });
});

describe('quote', () => {
  it('single-quotes for sh', () => {
    expect(quote("it's")).toBe(`'it'\\''s'`);
  });
});

describe('launcherScript', () => {
  const script = launcherScript(
    {
      hostname: 'web-0',
      mounts: [m('/etc/secret', { readOnly: true }), m('/tmp'), m('/etc/hosts', { file: true })],
      uid: 1000,
      gid: 1000,
      groups: [2000],
      noNewPrivs: true,
      workingDir: '/srv/app',
      env: new Map([['IFS', ':']]),
      startMarker: '/k/c.starting',
    },
    'container c of pod ns/p',
  );

  it('stages every source before the first mount can hide it, then mounts parents first', () => {
    const lines = script.split('\n');
    const firstTargetMount = lines.findIndex((l) => /--bind "\$S\/\d+"/.test(l));
    const lastStage = lines.findLastIndex((l) => /--bind '\/src/.test(l));
    expect(lastStage).toBeLessThan(firstTargetMount);
    expect(lines.filter((l) => /--bind "\$S/.test(l))).toEqual([`/usr/bin/mount --bind "$S/0" '/tmp'`, `/usr/bin/mount --bind "$S/1" '/etc/secret'`, `/usr/bin/mount --bind "$S/2" '/etc/hosts'`]);
    expect(script).toContain(`/usr/bin/mount -o remount,bind,ro '/etc/secret'`);
    expect(script).toContain(`[ -e '/etc/hosts' ] || `);
  });

  it('checks the command exists and removes the start marker right before exec', () => {
    const lines = script.trimEnd().split('\n');
    expect(lines.at(-3)).toMatch(/^command -v -- "\$1" >\/dev\/null \|\| \{ echo .*executable file not found/);
    // Through the folder opened first: a volume over /tmp cannot hide the marker.
    expect(lines.at(-2)).toBe(`/usr/bin/rm -f /proc/self/fd/9/'c.starting' && exec 9<&-`);
    expect(lines).toContain(`exec 9<'/k'`);
  });

  it('names the host, drops to the user and restores what sh changes in the environment', () => {
    expect(script).toContain(`echo 'web-0' > /proc/sys/kernel/hostname`);
    expect(script.trimEnd().split('\n').at(-1)).toBe(`exec /usr/bin/setpriv --reuid=1000 --regid=1000 --groups=2000 --no-new-privs --pdeathsig SIGKILL -- /usr/bin/env -C '/srv/app' -u PWD 'IFS=:' "$@"`);
  });
});
