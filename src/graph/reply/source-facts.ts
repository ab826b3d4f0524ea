/** What the extractor knows about one block of code, whatever its language. */

/** Facts about a block, read on the host without running it. */
export interface SourceFacts {
  /** Whether the block parses (JavaScript/TypeScript: the sandbox's own check; Python: a tokenizer's estimate). */
  parses: boolean;
  /** Why it does not parse, when known. */
  reason?: string;
  /** Names the block binds at the top level (functions, classes, variables, imports, types). */
  defines: Set<string>;
  /** Names the block reads without binding them anywhere in itself. */
  uses: Set<string>;
  /** No statement at all (blank, or comments only). */
  empty: boolean;
  /** Only values (`3628800`, `[1, 2]`, `h: 1` lines): printed output, not a program. */
  literalOnly: boolean;
  /** Something a program does: a definition, an assignment, an import, a print, a branch or loop. */
  acts: boolean;
  /** Every top-level statement defines something (functions, classes, types, imports) and nothing runs. */
  definitionsOnly: boolean;
  /** Lines that belong to another language (for code that is not tagged). */
  looksLikeOtherLanguage: boolean;
}
