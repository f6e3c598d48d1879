/**
 * The front door and the shelf of pages keep their shape: README.md stays a
 * front door (at most 250 lines, the docs pages linked from it), each page of
 * docs/ has the same few headings in the same order, every link between the
 * pages lands on a page and a heading that exist, nothing points outside the
 * repository (a user has no ../shared), every command the CLI knows is on
 * the commands page, the exit-code table there is the one src/cli/args.ts
 * holds, and every shipped tool and playbook is in the manifests page's
 * tables. Pure reads of the files: nothing runs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/args.js';
import { COMMANDS } from '../helpers/commands.js';
import { headings, page, PAGES, README, REPO, section, slug } from './readme.js';

/** The pages of docs/ issue 33 names, each a subject a user looks up. */
const SHELF = ['getting-started', 'asking', 'manifests', 'models', 'memory-and-report', 'operating', 'fleet', 'eval', 'commands', 'architecture'];
/** The headings every page of docs/ has, in this order. */
const HEADINGS = ['What it is', 'How to', 'The files you write', 'The options', 'Troubleshooting'];

describe('a front door and a shelf of pages', () => {
  it('README.md is at most 250 lines and links every page of docs/', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
    for (const name of SHELF) expect(README, name).toContain(`(docs/${name}.md)`);
  });

  it('docs/ holds one page per subject, and only those', () => {
    expect(readdirSync(join(REPO, 'docs')).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3)).sort()).toEqual([...SHELF].sort());
  });

  it('every page of docs/ has the same headings, in the same order', () => {
    for (const p of PAGES.filter((x) => x.name.startsWith('docs/'))) {
      const top = headings(p.text).filter((h) => h.level === 2).map((h) => h.text.slice(3));
      expect(top, p.name).toEqual(HEADINGS);
      expect(headings(p.text).filter((h) => h.level === 1), `${p.name}: one title`).toHaveLength(1);
    }
  });

  it('no page points outside the repository: a user has no ../shared', () => {
    for (const p of PAGES) expect(p.text, p.name).not.toMatch(/\.\.\/shared|\/work\/shared|shared\/(specs|models|corpora|tools)/);
  });

  it('every link between the pages lands on a page and a heading that exist', () => {
    let checked = 0;
    const problems: string[] = [];
    for (const p of PAGES) {
      for (const m of p.text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue; // http:, https:, mailto:
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target = file === '' ? p.name : normalize(join(dirname(p.name), file));
        checked++;
        if (!existsSync(join(REPO, target))) {
          problems.push(`${p.name}: ${link}: no file ${target}`);
          continue;
        }
        if (anchor === undefined) continue;
        const text = PAGES.find((x) => x.name === target)?.text ?? readFileSync(join(REPO, target), 'utf8');
        if (!headings(text).some((h) => slug(h.text) === anchor)) problems.push(`${p.name}: ${link}: ${target} has no heading #${anchor}`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('every command of the CLI is on the commands page', () => {
    const names = COMMANDS;
    expect(names.length).toBeGreaterThanOrEqual(30);
    const commands = page('docs/commands.md');
    expect(names.filter((n) => !commands.includes(`\`pico ${n}`))).toEqual([]);
  });

  it('the exit-code table of the commands page is the one the CLI uses', () => {
    const table = section(page('docs/commands.md'), /^### Exit codes$/);
    const codes = [...table.matchAll(/^\| (\d) \|/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual(Object.values(EXIT).sort());
  });

  it('every shipped tool and playbook is in the manifests page\'s tables', () => {
    const options = section(page('docs/manifests.md'), /^## The options$/);
    for (const kind of ['tools', 'playbooks']) {
      const shipped = readdirSync(join(REPO, 'manifests', kind)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5));
      expect(shipped.length).toBeGreaterThan(10);
      expect(shipped.filter((n) => !options.includes(`| \`${n}\` |`)), kind).toEqual([]);
    }
  });
});
