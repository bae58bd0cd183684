/**
 * The console shows the platform's rules, it does not hold them (issue 23: "one source for every
 * rule the console shows"). Health, the health roll-up, backoff, the promotion rule and quorum are
 * computed by the API (packages/api/src/health/, routers/registry/) from @orrery/spec's pure rules;
 * a page renders what the procedure returns. This test fails when a file under apps/console/src/:
 * - declares a function named like a rule (clusterHealth, worstHealth, isBackingOff, quorumOf, …);
 * - imports such a function, or a module named like the old copies;
 * - decides from a status condition (`c.status === 'True'`; showing a condition is fine);
 * - makes up a health word ('Healthy', 'Degraded', …) other than to compare an API verdict.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;
/** A value-level name that computes a rule (React components start upper-case and only render). */
const RULE_NAME = /^[a-z_$][\w$]*?(health|backingoff|backoff|quorum|tolerated|promotion|promotable|caughtup|lagof)/i;
const RULE_MODULE = /(health-from-conditions|cluster-health|replica-health|backing-off|quorum-effect|promotion-view|learner-verdict|registry-quorum|registry-learner-promotion|member-effects)/;
/** Spec rules the console must leave to the API even though @orrery/spec exports them. */
const SPEC_RULES = new Set(['learnerPromotion', 'observationBlocker', 'observationLag', 'lastTwoObservations', 'failuresTolerated', 'quorumOf']);
const CONDITION_STATUSES = new Set(['True', 'False', 'Unknown']);
const HEALTH_WORDS = new Set(['Healthy', 'Progressing', 'Degraded', 'Unknown']);
/** The badge maps a health word to its glyph: the only place that may spell all four. */
const BADGE = join('components', 'health-badge.tsx');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

/** Every place `text` (a file at `file`, relative to the console's src) computes a rule itself. */
export function ruleViolations(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (n: ts.Node, what: string) => out.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${what}`);
  const isFunction = (n: ts.Node | undefined) => !!n && (ts.isArrowFunction(n) || ts.isFunctionExpression(n));
  const visit = (n: ts.Node): void => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name && ts.isIdentifier(n.name) && RULE_NAME.test(n.name.text)) at(n, `defines ${n.name.text}()`);
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && isFunction(n.initializer) && RULE_NAME.test(n.name.text)) at(n, `defines ${n.name.text}()`);
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const from = n.moduleSpecifier.text;
      if (RULE_MODULE.test(from)) at(n, `imports the rule module ${from}`);
      const named = n.importClause?.namedBindings;
      if (!n.importClause?.isTypeOnly && named && ts.isNamedImports(named)) {
        for (const s of named.elements) {
          const name = (s.propertyName ?? s.name).text;
          if (!s.isTypeOnly && (SPEC_RULES.has(name) || RULE_NAME.test(name))) at(s, `imports ${name} from ${from}`);
        }
      }
    }
    if (ts.isBinaryExpression(n) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken].includes(n.operatorToken.kind)) {
      for (const [side, other] of [[n.left, n.right], [n.right, n.left]] as const) {
        if (ts.isPropertyAccessExpression(side) && side.name.text === 'status' && ts.isStringLiteral(other) && CONDITION_STATUSES.has(other.text)) at(n, `decides from a condition's status ('${other.text}')`);
      }
    }
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && HEALTH_WORDS.has(n.text) && !file.endsWith(BADGE)) {
      const p = n.parent;
      const compares = ts.isBinaryExpression(p) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(p.operatorToken.kind);
      if (!compares && !ts.isLiteralTypeNode(p)) at(n, `makes up the health '${n.text}'`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('the console computes no rule itself', () => {
  it('finds each kind of violation (so the scan below can fail)', () => {
    const planted = [
      "import { clusterHealth } from './cluster-health.ts';",
      "import { quorumOf } from '@orrery/spec';",
      'export function worstHealth(hs: string[]) { return hs[0]; }',
      'export const isBackingOff = (s: number, p: number) => s > p;',
      "const degraded = (cs: Array<{ type: string; status: string }>) => cs.find((c) => c.type === 'Degraded' && c.status === 'True');",
      "const badge = (ok: boolean) => (ok ? 'Healthy' : 'Degraded');",
    ].join('\n');
    expect(ruleViolations('app/planted.tsx', planted).map((v) => v.replace(/^[^ ]+ /, ''))).toEqual([
      'imports the rule module ./cluster-health.ts',
      'imports clusterHealth from ./cluster-health.ts',
      'imports quorumOf from @orrery/spec',
      'defines worstHealth()',
      'defines isBackingOff()',
      "decides from a condition's status ('True')",
      "makes up the health 'Healthy'",
      "makes up the health 'Degraded'",
    ]);
  });
  it('lets a page render what a procedure returns', () => {
    const rendering = [
      "import type { Health } from '@orrery/api';",
      "import { HealthBadge } from '../components/health-badge.tsx';",
      "export function ClusterRow({ c }: { c: { health: Health; message: string } }) { return c.health === 'Degraded' ? c.message : null; }",
      "type Only = 'Healthy' | 'Degraded';",
      "export const ReadyText = ({ cs }: { cs: Array<{ type: string; status: string }> }) => cs.find((c) => c.type === 'Ready')?.status ?? 'not reported';",
    ].join('\n');
    expect(ruleViolations('app/rendering.tsx', rendering)).toEqual([]);
  });
  it('holds for every file under apps/console/src', () => {
    const found = [...sources(SRC)].flatMap((path) => ruleViolations(relative(SRC, path), readFileSync(path, 'utf8')));
    expect(found, 'compute it in packages/api (health: packages/api/src/health/health-from-conditions.ts) and render the procedure\'s answer').toEqual([]);
  });
});
