import { describe, expect, it } from 'vitest';
import { MAX_CONFIGMAP_ARCHIVE_BYTES, packageConfigMap } from './package-config-map.ts';

const sha = '0123456789abcdef'.repeat(4);

describe('packageConfigMap', () => {
  it('is the immutable orrery-package-<sha256[:20]> with the archive as binaryData package.tgz', () => {
    const cm = packageConfigMap('shop', sha, Buffer.from('archive'));
    expect(cm).toMatchObject({
      kind: 'ConfigMap',
      immutable: true,
      metadata: { name: 'orrery-package-0123456789abcdef0123', namespace: 'shop', annotations: { 'orrery.dev/package-sha256': sha } },
      binaryData: { 'package.tgz': Buffer.from('archive').toString('base64') },
    });
  });

  it('refuses an archive a ConfigMap cannot hold, pointing at package.url', () => {
    const big = Buffer.alloc(Math.ceil((MAX_CONFIGMAP_ARCHIVE_BYTES * 3) / 4) + 10);
    expect(packageConfigMap('shop', sha, big)).toEqual({ error: expect.stringMatching(/over what a ConfigMap holds \(1 MiB\).*package\.url with sha256 0123/) });
  });
});
