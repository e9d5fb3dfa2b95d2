// Names counted and cut as people see them: by grapheme (an emoji with its modifiers, a letter
// with its accents), never by UTF-16 unit, so no name is ever cut inside a character.

const segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

/** The graphemes of a string, in order. */
export function graphemes(text) {
  const value = String(text ?? '');
  if (segmenter) return Array.from(segmenter.segment(value), (part) => part.segment);
  return Array.from(value); // code points: at least never half a surrogate pair
}

/** How many characters a person counts in text. */
export function graphemeCount(text) {
  return graphemes(text).length;
}

/**
 * Cut text to at most `max` graphemes, and to at most `max` code points (what the server
 * counts), dropping whole graphemes only.
 */
export function cutGraphemes(text, max) {
  let out = '';
  let count = 0;
  let points = 0;
  for (const part of graphemes(text)) {
    const size = Array.from(part).length;
    if (count + 1 > max || points + size > max) break;
    out += part;
    count += 1;
    points += size;
  }
  return out;
}

/** The first character of a name, upper-cased, for an avatar ("?" when empty). */
export function initial(name) {
  const first = graphemes(String(name ?? '').trim())[0];
  return first ? first.toUpperCase() : '?';
}
