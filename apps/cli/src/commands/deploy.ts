import { readFileSync, statSync } from 'node:fs';
import { FUNCTION_LABEL, FunctionSchema, PACKAGE_MAIN_PATTERN, RevisionSchema, type Source } from '@orrery/spec';
import { StoreError } from '@orrery/store';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFlags, resolveConnection } from '../connection/resolve-connection.ts';
import { openStore } from '../connection/open-store.ts';
import { buildProgress } from '../deploy/build-progress.ts';
import { type CodePackage, codePackage, isPackagePath } from '../deploy/code-package.ts';
import { curlHint } from '../deploy/curl-hint.ts';
import { uploadPackage } from '../deploy/package-upload.ts';
import { DEFAULT_DEPLOY_TIMEOUT, MAX_CODE_BYTES, parseDeployFlags } from '../deploy/deploy-flags.ts';
import { deployManifest } from '../deploy/deploy-manifest.ts';
import { deployProgress, progressLine, type DeployProgress } from '../deploy/deploy-progress.ts';
import { qualifiedName } from '../resources/kind-names.ts';
import { describeStoreError } from '../resources/store-errors.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'from code to a URL: create or update a function and wait until it serves';

const HELP = `usage: orrery deploy NAME --code FILE|DIR|ARCHIVE [--main PATH] [--env ENV] [--state KEYSPACE] [--sticky SOURCE:NAME]
                     [--concurrency N] [--scale MIN:MAX] [-n namespace] [--no-wait] [--timeout 2m]

Creates the Function NAME, or updates it (only what the flags name changes; traffic, env vars
and other settings stay), then waits until its new revision is ready and prints its URL and a
curl to paste:

  --code FILE          spec.template.source: inline on the local platform; on Kubernetes a
                       ConfigMap <NAME>-code-<hash> referenced by configMapRef (at most 1 MiB)
  --code DIR|ARCHIVE   a folder with package.json or requirements.txt (or a .tgz/.tar.gz/.zip of
                       one): packed, uploaded (locally) or written to the ConfigMap
                       orrery-package-<sha256> (Kubernetes, at most 1 MiB), built once with its
                       dependencies; spec.template.source.package (docs/packages.md)
  --main PATH          with a package: the module to load (package.main; default package.json
                       "main", index.mjs, index.js, or main.py)
  --env ENV            spec.template.environment (an Environment, default nodejs)
  --state KEYSPACE     spec.state.keyspace: the function keeps keyed state there
  --sticky SOURCE:NAME spec.state.sticky: one key's requests go to one worker; SOURCE is
                       header, queryparam or cookie (e.g. header:X-User); needs --state
  --concurrency N      spec.template.containerConcurrency: requests per worker (0 = unlimited)
  --scale MIN:MAX      spec.template.autoscaling.minScale/maxScale (MAX 0 or empty = unbounded)

Progress: "revision NAME-0000N created", its workers starting, then ready — or the reason it
failed (the Revision's or the Function's conditions) with exit status 1. --no-wait returns
after the apply; --timeout (default ${DEFAULT_DEPLOY_TIMEOUT}) gives up waiting (exit 1; the
deploy goes on: \`orrery describe function NAME\`). Bad flags: exit 2.
${CONNECTION_HELP}`;

/** The flags, exported for `orrery completion`. */
export const options = {
  code: { type: 'string' },
  main: { type: 'string' },
  env: { type: 'string' },
  state: { type: 'string' },
  sticky: { type: 'string' },
  concurrency: { type: 'string' },
  scale: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'no-wait': { type: 'boolean' },
  timeout: { type: 'string' },
  'poll-ms': { type: 'string' },
  ...CONNECTION_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

function readCode(file: string): { code: string } | { error: string } {
  try {
    const size = statSync(file).size;
    if (size > MAX_CODE_BYTES) return { error: `--code ${file} is ${size} bytes; the limit is ${MAX_CODE_BYTES} (a ConfigMap's): bundle less, or serve it from a URL in a manifest` };
    const code = readFileSync(file, 'utf8');
    if (code.trim() === '') return { error: `--code ${file} is empty` };
    return { code };
  } catch (err) {
    return { error: `--code ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}` };
  }
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('deploy', HELP, argv, { options, allowPositionals: true });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const req = parseDeployFlags(positionals, values);
  const pollMs = Number(values['poll-ms'] ?? 500);
  if ('error' in req || !(pollMs > 0)) {
    console.error(`orrery deploy: ${'error' in req ? req.error : '--poll-ms must be a positive number'}\n\n${HELP}`);
    return 2;
  }
  const main = values.main;
  const asPackage = req.codeFile !== undefined && (await isPackagePath(req.codeFile));
  if (main !== undefined && (!asPackage || !PACKAGE_MAIN_PATTERN.test(main))) {
    console.error(`orrery deploy: ${asPackage ? `--main "${main}" must be a relative path inside the package, e.g. src/handler.mjs` : '--main goes with --code DIR or an archive (a package)'}`);
    return 2;
  }
  let pkg: CodePackage | undefined;
  if (asPackage) {
    console.log(`packing ${req.codeFile}`);
    const packed = await codePackage(req.codeFile!);
    if ('error' in packed) {
      console.error(`orrery deploy: ${packed.error}`);
      return 2;
    }
    pkg = packed;
    console.log(`package ${pkg.sha256.slice(0, 12)}: ${pkg.files !== undefined ? `${pkg.files} files, ` : ''}${Math.max(1, Math.round(pkg.archive.length / 1024))} KiB`);
  }
  const code = req.codeFile !== undefined && !asPackage ? readCode(req.codeFile) : undefined;
  if (code && 'error' in code) {
    console.error(`orrery deploy: ${code.error}`);
    return 2;
  }
  const conn = resolveConnection(connectionFlags(values));
  const { store, where, via } = openStore(conn);
  const label = qualifiedName('Function', req.name);
  try {
    const stored = await store.get('Function', req.namespace, req.name);
    const existing = stored ? FunctionSchema.parse(stored) : undefined;
    let source: Source | undefined;
    if (code) source = store.codeSource ? await store.codeSource(req.namespace, req.name, code.code) : { inline: code.code };
    if (pkg) {
      console.log(`uploading package ${pkg.sha256.slice(0, 12)}`);
      const put = store.putPackage
        ? await store.putPackage(req.namespace, pkg.sha256, pkg.archive)
        : await uploadPackage(via === 'api' ? conn.apiUrl : conn.storeUrl, via === 'api' ? conn.apiToken : conn.storeToken, req.namespace, pkg.sha256, pkg.archive);
      if (put === 'present') console.log(`package ${pkg.sha256.slice(0, 12)}: already stored`);
      source = { package: { sha256: pkg.sha256, ...(main ? { main } : {}) } };
    }
    const manifest = deployManifest(existing, req, source);
    if ('error' in manifest) {
      console.error(`orrery deploy: ${manifest.error}`);
      return 2;
    }
    const { outcome } = await store.apply(manifest);
    console.log(`${label} ${outcome}`);
    if (!req.wait) return 0;

    const deadline = Date.now() + req.timeoutMs;
    let last = '';
    let progress: DeployProgress | undefined;
    for (;;) {
      const fnNow = await store.get('Function', req.namespace, req.name);
      if (!fnNow) {
        console.error(`orrery deploy: ${label} was deleted while deploying`);
        return 1;
      }
      const fn = FunctionSchema.parse(fnNow);
      if (pkg) {
        const build = buildProgress(fn, pkg.sha256);
        if (build.line !== last) console.log(build.line);
        last = build.line;
        if (build.phase === 'failed') {
          if (build.log) console.error(`--- build log (last ${Buffer.byteLength(build.log)} bytes) ---\n${build.log.trimEnd()}\n---`);
          console.error(`orrery deploy: ${label}: the package did not build (see \`orrery describe function ${req.name} -n ${req.namespace}\`)`);
          return 1;
        }
        if (build.phase !== 'built') {
          if (Date.now() >= deadline) {
            console.error(`orrery deploy: still building after ${values.timeout ?? DEFAULT_DEPLOY_TIMEOUT} (last: ${build.line}); it goes on — follow it with \`orrery describe function ${req.name} -n ${req.namespace}\``);
            return 1;
          }
          await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
          continue;
        }
      }
      const revisions = (await store.list('Revision', { namespace: req.namespace, labels: { [FUNCTION_LABEL]: req.name } })).items.map((r) => RevisionSchema.parse(r));
      progress = deployProgress(fn, revisions);
      const line = progressLine(progress);
      if (line !== last) console.log(line);
      last = line;
      if (progress.phase === 'failed') {
        console.error(`orrery deploy: ${label} did not roll out (see \`orrery describe function ${req.name} -n ${req.namespace}\`)`);
        return 1;
      }
      if (progress.phase === 'unrouted') return 0;
      if (progress.phase === 'ready') {
        const url = progress.url ?? `${conn.routerUrl}/${req.namespace}/${req.name}`;
        console.log(`URL: ${url}`);
        console.log(curlHint(url, fn.spec.state?.sticky));
        return 0;
      }
      if (Date.now() >= deadline) {
        console.error(`orrery deploy: still not ready after ${values.timeout ?? DEFAULT_DEPLOY_TIMEOUT} (last: ${line}); it goes on — follow it with \`orrery describe function ${req.name} -n ${req.namespace}\``);
        return 1;
      }
      await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
    }
  } catch (err) {
    console.error(`orrery deploy: ${label}: ${err instanceof StoreError ? describeStoreError(err, where) : (err as Error).message}`);
    return 1;
  } finally {
    await store.close();
  }
}
