import { type ShellWord, syntheticWord } from '../words';
import {
  effectsOf,
  flags,
  type Model,
  notUnderstood,
  type OptionKind,
  type OptionTable,
  type ProgramEffects,
  readOptions,
  values,
} from './model';

/** `-o FILE` of a downloader: `-` is standard output. */
const download: OptionKind = (v, f, option) => {
  if (v.literal && v.value === '-') return;
  // curl writes in place of `#1`, `#2`, … the text a URL glob matched (`-o 'sr#1/a.ts'` with
  // `http://x/{c}` writes src/a.ts): such a name is not known before it runs.
  const target = f.program === 'curl' && /#\d/.test(v.value) ? syntheticWord(v.text) : v;
  f.sideWrites.push({ op: `${f.program} ${option}`, target });
};

/**
 * A download saved under the URL's last path segment: a write of that name (unknown if not
 * literal, or if the name is not the URL's: `known` false).
 */
const writeNamed = (fx: ProgramEffects, op: string, url: ShellWord, known = true): void => {
  const path = url.value.replace(/[?#].*$/, '').replace(/^[a-z]+:\/\/[^/]*/i, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  fx.sideWrites.push({
    op,
    target:
      known && url.literal && name !== '' && name !== '..'
        ? syntheticWord(name, true)
        : syntheticWord(url.text),
  });
};

/** A value curl sends, which names a file read in some spellings (`@FILE`). */
const curlData: OptionKind = (v, f, option) => {
  const at = v.value.indexOf('@');
  // A form field read from a file (`-F 'name=<FILE'`), a value url-encoded from one
  // (`--data-urlencode name@FILE`), and a cookie option's value without `=` (a cookie file)
  // are files read too.
  const form = option === '-F' || option === '--form';
  if (form && v.literal && /^[^=]*=[@<]/.test(v.value)) return formFiles(v, f, option);
  const from = option === '--data-urlencode' ? /^[^=@]*@/.exec(v.value) : null;
  if (at >= 0 && (at === 0 || v.value[at - 1] === '='))
    f.reads.push(syntheticWord(v.value.slice(at + 1), v.literal));
  else if (from) f.reads.push(syntheticWord(v.value.slice(from[0].length), v.literal));
  else if ((option === '-b' || option === '--cookie') && !v.value.includes('=')) f.reads.push(v);
  else if (!v.literal) f.reads.push(v);
};

/**
 * `-F 'name=@FILE'` / `'name=<FILE'`: the file ends at `;` (`;type=…`, `;filename=…` follow), and
 * `@a,b` sends several files; a quoted name (`@"a;b"`) is not read here.
 */
const formFiles = (v: ShellWord, f: ProgramEffects, option: string): void => {
  const files = v.value.slice(v.value.indexOf('=') + 2);
  if (files.startsWith('"'))
    notUnderstood(
      f,
      `curl ${option} ${v.text} names its file in quotes, which the model does not read`,
    );
  for (const file of (files.split(';')[0] as string).split(','))
    f.reads.push(syntheticWord(file, true));
};

/**
 * `-H @FILE` sends the headers FILE holds, `-w @FILE` prints the format FILE holds (its text
 * too); `@-` is standard input. curl 8's `-w '%output{FILE}'` writes what follows to FILE.
 */
const curlFromFile: OptionKind = (v, f, option) => {
  if (v.value.startsWith('@') && v.value !== '@-')
    f.reads.push(syntheticWord(v.value.slice(1), v.literal));
  if (/%output\{/.test(v.value))
    notUnderstood(f, `curl ${option} ${v.text} writes to a file its format names`);
};

/**
 * A `file:` URL reads the local file it names (`file:///p`, `file://localhost/p`, `file:/p`,
 * percent-decoded); a URL not known before it runs may be one.
 */
const urlRead = (url: ShellWord, f: ProgramEffects): void => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.value)?.[1];
  if (scheme === undefined ? url.literal : scheme.toLowerCase() !== 'file') return;
  let path = url.value.replace(/^file:(\/\/[^/]*)?/i, '');
  let decoded = true;
  try {
    path = decodeURIComponent(path);
  } catch {
    decoded = false;
  }
  if (!url.literal || !decoded || /[{[]/.test(path))
    notUnderstood(
      f,
      `curl ${url.text} may name a local file (a file: URL) not known before it runs`,
    );
  f.reads.push(syntheticWord(path, url.literal));
};

/** `-K FILE`: more options read from FILE (`output = src/a.ts` writes), not known before it runs. */
const curlConfig: OptionKind = (v, f) => {
  f.reads.push(v);
  notUnderstood(f, `curl -K reads more options from ${v.text}, which are not known before it runs`);
};

const CURL_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--silent --show-error --fail --location --include --head --verbose --insecure --compressed --remote-name --remote-name-all --get --http1.1 --http2 --globoff --no-progress-meter --fail-with-body --create-dirs --remote-header-name',
    ),
    ...values(
      '--request --user-agent --max-time --connect-timeout --retry --user --referer --proxy --resolve --range --max-redirs',
    ),
    '--header': curlFromFile,
    '--write-out': curlFromFile,
    '--url': (v, f) => urlRead(v, f),
    '--output': download,
    '--dump-header': 'write',
    '--cookie-jar': 'write',
    '--trace': 'write',
    '--trace-ascii': 'write',
    '--stderr': 'write',
    '--output-dir': 'write',
    '--upload-file': 'read',
    '--config': curlConfig,
    '--netrc-file': 'read',
    '--cert': 'read',
    '--key': 'read',
    '--cookie': curlData,
    '--data': curlData,
    '--data-binary': curlData,
    '--data-raw': 'value',
    '--data-urlencode': curlData,
    '--form': curlData,
    '--json': curlData,
  },
  short: {
    ...flags('s S f L i I v k O G g J #'),
    ...values('X A m u e x r'),
    H: curlFromFile,
    w: curlFromFile,
    o: download,
    D: 'write',
    c: 'write',
    T: 'read',
    K: curlConfig,
    E: 'read',
    b: curlData,
    d: curlData,
    F: curlData,
  },
};

export const curl: Model = (argv) => {
  const fx = effectsOf('curl');
  fx.network = true;
  fx.readOnly = false;
  const given = new Set<string>();
  const urls = readOptions(argv, 1, CURL_OPTIONS, fx, given);
  for (const url of urls) urlRead(url, fx);
  const has = (...names: string[]): boolean => names.some((name) => given.has(name));
  // -O / --remote-name writes the URL's last path segment in the working directory; with -J the
  // name the server sends, and for a URL glob (`http://x/{Makefile}`) each name it expands to.
  if (has('-O', '--remote-name', '--remote-name-all')) {
    const serverNamed = has('-J', '--remote-header-name');
    const globOff = has('-g', '--globoff');
    for (const url of urls)
      writeNamed(fx, 'curl -O', url, !serverNamed && (globOff || !/[[{]/.test(url.value)));
  }
  return fx;
};

const WGET_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--quiet --verbose --no-verbose --continue --timestamping --no-check-certificate --server-response --spider --no-clobber --recursive --no-parent --mirror --page-requisites --convert-links',
    ),
    ...values('--tries --timeout --user-agent --header --user --password --level --wait'),
    '--output-document': download,
    '--output-file': 'write',
    '--append-output': 'write',
    '--directory-prefix': 'write',
    '--input-file': 'read',
    '--post-file': 'read',
    '--body-file': 'read',
    '--load-cookies': 'read',
    '--save-cookies': 'write',
    '--post-data': 'value',
    '--execute': 'run',
  },
  short: {
    ...flags('q v c N S r m p k b x E K H L np'),
    ...values('t T U l w A R D'),
    O: download,
    o: 'write',
    a: 'write',
    P: 'write',
    i: 'read',
    e: 'run',
  },
};

export const wget: Model = (argv) => {
  const fx = effectsOf('wget');
  fx.network = true;
  fx.readOnly = false;
  const given = new Set<string>();
  const urls = readOptions(argv, 1, WGET_OPTIONS, fx, given);
  const has = (...names: string[]): boolean => names.some((name) => given.has(name));
  // -r / -m / -p save the pages a site links to, named by the site.
  if (has('-r', '--recursive', '-m', '--mirror', '-p', '--page-requisites'))
    notUnderstood(
      fx,
      'wget -r saves the files a site links to, whose names are not known before it runs',
    );
  // Without -O (or --spider), wget saves each URL under its last path segment: with -x under
  // directories named by the URL's host and path, with -i those of the URLs a file names.
  if (!has('-O', '--output-document', '--spider')) {
    if (has('-x'))
      notUnderstood(fx, 'wget -x saves each URL under directories named by its host and path');
    if (has('-i', '--input-file'))
      notUnderstood(
        fx,
        'wget -i saves the URLs a file names, whose names are not known before it runs',
      );
    for (const url of urls) writeNamed(fx, 'wget', url);
  }
  return fx;
};
