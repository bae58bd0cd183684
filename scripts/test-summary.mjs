// Reads vitest's JSON report(s) and prints the closing "N passed, N failed" line.
import { existsSync, readFileSync } from 'node:fs';

const files = [];
/** Lines of a failure's message shown under its name: CI keeps only the log's tail. */
const MESSAGE_LINES = 8;
// eslint-disable-next-line no-control-regex -- vitest colours its messages; the summary is plain text.
const ANSI = /\u001b\[[0-9;]*m/g;

/** The first lines of a failure message, indented under the test's name. */
function excerpt(message) {
  if (!message) return '';
  const lines = message.replace(ANSI, '').split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  return lines.slice(0, MESSAGE_LINES).map((l) => `\n      ${l.length > 300 ? `${l.slice(0, 300)}…` : l}`).join('');
}
const failures = [];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  // A run that died before writing its report must not pass unnoticed.
  if (!existsSync(file)) {
    console.error(`no test report at ${file}: that vitest run did not finish`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite that failed to load (syntax error, failed beforeAll) has no failed test but must count.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).every((a) => a.status !== 'failed')) {
      failed += 1;
      failures.push(`${suite.name} (did not load or a hook failed: ${(suite.message ?? '').split('\n')[0].slice(0, 200)})`);
    }
    for (const a of suite.assertionResults ?? []) {
      if (a.status === 'failed') failures.push(`${suite.name} > ${a.fullName}${excerpt(a.failureMessages?.[0])}`);
    }
    if (suite.startTime && suite.endTime) files.push({ name: suite.name, ms: suite.endTime - suite.startTime });
  }
}
// The slowest files and every failure once more, right above the last line: a CI log cut to its
// tail still says what failed and where the time went.
const root = `${process.cwd()}/`;
console.log('[test] slowest files (time in tests: vitest leaves beforeAll/afterAll out of its JSON, e.g. a chart test install):');
for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, 12)) console.log(`  ${(f.ms / 1000).toFixed(0).padStart(5)} s  ${f.name.replace(root, '')}`);
if (failures.length) {
  console.log('[test] failed:');
  for (const f of failures) console.log(`  ${f.replace(root, '')}`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
