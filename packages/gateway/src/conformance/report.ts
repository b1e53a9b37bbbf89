// Reports of a certification run: text, JSON and JUnit XML. Written for any list of scenario
// results, so that the SNAP server conformance run and a webhook-certification run share them.

/** A request as sent, with Authorization and X-SIGNATURE redacted. */
export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** An answer as received (`status` 0 when none came). */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ScenarioResult {
  /** The group it belongs to: an operation (`qris-generate`), one JUnit test suite each. */
  group: string;
  id: string;
  title: string;
  kind: 'positive' | 'negative';
  passed: boolean;
  /** Why it failed, in plain words; `passed` when it passed. */
  reason: string;
  durationMs: number;
  request?: RecordedRequest;
  response?: RecordedResponse;
}

export interface ConformanceReport {
  /** What was certified: `snap-server-conformance`, later `webhook-certification`. */
  suite: string;
  /** The server (or endpoint) under test. */
  target: string;
  startedAt: string;
  durationMs: number;
  total: number;
  passed: number;
  failed: number;
  /** True when every scenario passed. */
  ok: boolean;
  results: ScenarioResult[];
}

/** Builds the report's totals from its results. */
export function summarise(
  suite: string,
  target: string,
  startedAt: Date,
  durationMs: number,
  results: ScenarioResult[],
): ConformanceReport {
  const passed = results.filter((r) => r.passed).length;
  return {
    suite,
    target,
    startedAt: startedAt.toISOString(),
    durationMs,
    total: results.length,
    passed,
    failed: results.length - passed,
    ok: passed === results.length,
    results,
  };
}

/** One line per scenario, then a summary line. */
export function formatText(report: ConformanceReport): string {
  const lines: string[] = [`${report.suite} against ${report.target}`];
  for (const r of report.results) {
    const mark = r.passed ? 'PASS' : 'FAIL';
    lines.push(`${mark}  ${r.group}  ${r.id}  ${oneLine(r.title)}${r.passed ? '' : `: ${oneLine(r.reason)}`}`);
  }
  lines.push(
    `${report.passed} of ${report.total} scenarios passed, ${report.failed} failed (${(report.durationMs / 1000).toFixed(1)} s)`,
  );
  return `${lines.join('\n')}\n`;
}

/** The whole report as indented JSON. */
export function formatJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** JUnit XML: a `testsuite` per group, a `testcase` per scenario, a `failure` with the reason. */
export function formatJunit(report: ConformanceReport): string {
  const groups = new Map<string, ScenarioResult[]>();
  for (const r of report.results) {
    const list = groups.get(r.group) ?? [];
    list.push(r);
    groups.set(r.group, list);
  }
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="${xml(report.suite)}" tests="${report.total}" failures="${report.failed}" errors="0" time="${secs(report.durationMs)}">`,
  );
  for (const [group, results] of groups) {
    const failures = results.filter((r) => !r.passed).length;
    const time = results.reduce((t, r) => t + r.durationMs, 0);
    out.push(
      `  <testsuite name="${xml(group)}" tests="${results.length}" failures="${failures}" errors="0" skipped="0" time="${secs(time)}" timestamp="${xml(report.startedAt.slice(0, 19))}">`,
    );
    for (const r of results) {
      const open = `    <testcase classname="${xml(`${report.suite}.${group}`)}" name="${xml(`${r.id}: ${r.title}`)}" time="${secs(r.durationMs)}"`;
      if (r.passed) {
        out.push(`${open}/>`);
        continue;
      }
      out.push(`${open}>`);
      out.push(
        `      <failure message="${xml(oneLine(r.reason))}" type="${xml(r.kind)}">${xml(exchange(r))}</failure>`,
      );
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** The reason, then the request and answer as plain text (for a failure's body). */
function exchange(r: ScenarioResult): string {
  const parts = [r.reason];
  if (r.request) {
    const h = Object.entries(r.request.headers).map(([k, v]) => `${k}: ${v}`);
    parts.push('', `${r.request.method} ${r.request.path}`, ...h, '', r.request.body);
  }
  if (r.response) {
    const h = Object.entries(r.response.headers).map(([k, v]) => `${k}: ${v}`);
    parts.push('', `HTTP ${r.response.status}`, ...h, '', r.response.body);
  }
  return parts.join('\n');
}

const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ');

/**
 * Escapes text for an XML attribute or element: the five special characters, and every character
 * XML 1.0 cannot hold (control characters other than tab, LF and CR, lone surrogates, U+FFFE and
 * U+FFFF), which become `\uXXXX` text.
 */
export function xml(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i] + (text[i + 1] as string);
        i++;
        continue;
      }
    }
    const ch = text[i] as string;
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === "'") out += '&apos;';
    else if (ch === '\n' || ch === '\t') out += ch;
    else if (ch === '\r') out += '&#13;';
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff) || c === 0xfffe || c === 0xffff)
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}
