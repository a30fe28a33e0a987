declare module 'snowball-stemmers' {
  interface Stemmer {
    /** The word's stem; the word must be lower case. */
    stem(word: string): string;
  }
  export function newStemmer(language: string): Stemmer;
  export function algorithms(): string[];
}
