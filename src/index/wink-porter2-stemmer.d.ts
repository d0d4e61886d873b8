// The package ships no types: one function, an English word (lowercase) to its Porter2 stem.
declare module 'wink-porter2-stemmer' {
  function stem(word: string): string;
  export default stem;
}
