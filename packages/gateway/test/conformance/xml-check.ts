// A small XML 1.0 well-formedness check for the JUnit reports (no XML parser is a dependency).
import assert from 'node:assert/strict';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*$/;
// Characters XML 1.0 allows: tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF.
const INVALID_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function decode(text: string, where: string): string {
  assert.ok(!text.includes('<'), `raw < in ${where}`);
  return text.replace(/&([^;]*);?/g, (m, ent: string) => {
    assert.ok(m.endsWith(';'), `unterminated entity in ${where}: ${m}`);
    const map: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (ent in map) return map[ent] as string;
    const num = /^#(\d+)$/.exec(ent) ?? /^#x([0-9a-fA-F]+)$/.exec(ent);
    assert.ok(num, `unknown entity &${ent}; in ${where}`);
    return String.fromCodePoint(Number.parseInt(num[1] as string, ent.startsWith('#x') ? 16 : 10));
  });
}

/** Parses `text`, failing the test on anything that is not well-formed; returns the root element. */
export function checkWellFormed(text: string): XmlElement {
  assert.ok(!INVALID_CHAR.test(text), 'a character XML 1.0 cannot hold');
  let rest = text;
  const decl = /^<\?xml [^?]*\?>\s*/.exec(rest);
  if (decl) rest = rest.slice(decl[0].length);
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const chunk = lt === -1 ? rest : rest.slice(0, lt);
    const top = stack.at(-1);
    if (top) top.text += decode(chunk, `text of <${top.name}>`);
    else assert.match(chunk, /^\s*$/, 'text outside the root element');
    if (lt === -1) break;
    rest = rest.slice(lt);
    const tag = /^<(\/?)([^\s/>]+)((?:\s+[^\s=]+="[^"]*")*)\s*(\/?)>/.exec(rest);
    assert.ok(tag, `malformed tag at: ${rest.slice(0, 80)}`);
    const [whole, closing, name, attrs, selfClosing] = tag as unknown as [string, string, string, string, string];
    assert.match(name, NAME, `bad element name ${name}`);
    rest = rest.slice(whole.length);
    if (closing) {
      const open = stack.pop();
      assert.equal(open?.name, name, `</${name}> closes <${open?.name}>`);
      if (stack.length === 0) root = open;
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const m of attrs.matchAll(/([^\s=]+)="([^"]*)"/g)) {
      const key = m[1] as string;
      assert.match(key, NAME, `bad attribute name ${key}`);
      assert.ok(!(key in attributes), `attribute ${key} twice`);
      attributes[key] = decode(m[2] as string, `attribute ${key}`);
    }
    const el: XmlElement = { name, attributes, children: [], text: '' };
    if (stack.length === 0) assert.equal(root, undefined, 'a second root element');
    stack.at(-1)?.children.push(el);
    if (selfClosing) {
      if (stack.length === 0) root = el;
    } else stack.push(el);
  }
  assert.equal(stack.length, 0, `unclosed <${stack.at(-1)?.name}>`);
  assert.ok(root, 'no root element');
  return root;
}
