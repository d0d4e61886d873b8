// Every named action the pane knows, with the context it belongs to and what it does. Keymaps
// (keymaps/*.json) bind these names to keys; controllers attach handlers to them; the help overlay
// and the keybinding reference are generated from this catalogue plus the controllers' records.

export const CONTEXTS = [
  'global',
  'panes',
  'list',
  'stores',
  'sources',
  'runs',
  'form',
  'assistant',
  'browser',
  'scan',
  'review',
  'summary',
  'confirm',
  'search',
  'searchResults',
  'help',
] as const;
export type ContextName = (typeof CONTEXTS)[number];

export const ACTIONS = {
  'universal.quit': { context: 'global', description: 'Quit kortty-rag', hint: 'quit' },
  'universal.help': { context: 'global', description: 'Show the keys that work here', hint: 'help' },
  'universal.back': { context: 'global', description: 'Close the dialog or go back', hint: 'back' },
  'universal.nextPane': {
    context: 'panes',
    description: 'Switch between the stores and sources panes',
    hint: 'pane',
  },
  'universal.tabStores': { context: 'panes', description: 'Show the knowledge stores', hint: 'stores' },
  'universal.tabRuns': { context: 'panes', description: 'Show recent AI runs', hint: 'runs' },
  'universal.refresh': {
    context: 'global',
    description: 'Reload stores, models and runs from disk',
    hint: 'reload',
  },
  'job.cancel': {
    context: 'global',
    description: 'Cancel the running check, indexing or download (until activation)',
    hint: 'cancel job',
  },

  'list.up': { context: 'list', description: 'Move up', hint: 'up' },
  'list.down': { context: 'list', description: 'Move down', hint: 'down' },
  'list.pageUp': { context: 'list', description: 'Page up', hint: 'page up' },
  'list.pageDown': { context: 'list', description: 'Page down', hint: 'page down' },
  'list.top': { context: 'list', description: 'Go to the first row', hint: 'top' },
  'list.bottom': { context: 'list', description: 'Go to the last row', hint: 'bottom' },

  'stores.create': { context: 'stores', description: 'Create a knowledge store', hint: 'create' },
  'stores.delete': {
    context: 'stores',
    description: 'Delete the selected store (source files are kept)',
    hint: 'delete',
  },
  'stores.roles': { context: 'stores', description: 'Edit roles and autonomous workflows', hint: 'roles' },
  'stores.open': { context: 'stores', description: "Show the store's sources", hint: 'sources' },
  'stores.addFolder': {
    context: 'stores',
    description: 'Add a folder (recursive) to the selected store',
    hint: 'add folder',
  },
  'stores.addFiles': { context: 'stores', description: 'Add files to the selected store', hint: 'add files' },
  'stores.testSearch': {
    context: 'stores',
    description: 'Test search in the selected store',
    hint: 'search',
  },

  'sources.addFiles': { context: 'sources', description: 'Add files', hint: 'add files' },
  'sources.addFolder': { context: 'sources', description: 'Add a folder (recursive)', hint: 'add folder' },
  'sources.updateNow': {
    context: 'sources',
    description: 'Update now: check the selected source again',
    hint: 'update',
  },
  'sources.updateAll': {
    context: 'sources',
    description: 'Update now: check every source of the store',
    hint: 'update all',
  },
  'sources.retryFailed': {
    context: 'sources',
    description: 'Update now, extracting again the files that failed before (even if unchanged)',
    hint: 'retry failed',
  },
  'sources.toggleEnabled': {
    context: 'sources',
    description: 'Disable or enable the selected source',
    hint: 'disable/enable',
  },
  'sources.remove': {
    context: 'sources',
    description: 'Remove the selected source (files are kept)',
    hint: 'remove',
  },
  'sources.options': {
    context: 'sources',
    description: 'Advanced options of the selected source',
    hint: 'options',
  },
  'sources.testSearch': { context: 'sources', description: 'Test search in this store', hint: 'search' },
  'sources.back': { context: 'sources', description: 'Back to the stores pane', hint: 'stores' },

  'runs.openInEditor': {
    context: 'runs',
    description: "Open the selected run's first excerpt in $EDITOR",
    hint: 'open',
  },

  'form.next': { context: 'form', description: 'Next field', hint: 'next' },
  'form.prev': { context: 'form', description: 'Previous field', hint: 'previous' },
  'form.activate': {
    context: 'form',
    description: 'Press the button, toggle, or go to the next field',
    hint: 'press',
  },
  'form.toggle': {
    context: 'form',
    description: 'Toggle a checkbox, cycle a choice, open a section',
    hint: 'toggle',
  },

  'assistant.install': { context: 'assistant', description: 'Install the selected model', hint: 'install' },
  'assistant.localFile': { context: 'assistant', description: 'Use a local GGUF file', hint: 'local file' },

  'browser.open': { context: 'browser', description: 'Open the folder / go to the typed path', hint: 'open' },
  'browser.parent': { context: 'browser', description: 'Go to the parent folder', hint: 'parent' },
  'browser.mark': { context: 'browser', description: 'Mark or unmark a file (Add files)', hint: 'mark' },
  'browser.choose': {
    context: 'browser',
    description: 'Use the highlighted folder or the marked files',
    hint: 'choose',
  },
  'browser.goto': { context: 'browser', description: 'Type a path', hint: 'type path' },

  'review.confirm': {
    context: 'review',
    description: 'Confirm: index what the preview shows',
    hint: 'confirm',
  },
  'review.cancel': { context: 'review', description: 'Cancel: index nothing', hint: 'cancel' },
  'review.filterSkipped': {
    context: 'review',
    description: 'Show only skipped rows / all rows',
    hint: 'skipped only',
  },
  'review.nextSource': { context: 'review', description: 'Next source preview', hint: 'next source' },

  'summary.close': { context: 'summary', description: 'Close the summary', hint: 'close' },

  'confirm.yes': { context: 'confirm', description: 'Yes, do it', hint: 'yes' },
  'confirm.no': { context: 'confirm', description: 'No, keep everything', hint: 'no' },

  'search.run': { context: 'search', description: 'Search', hint: 'search' },
  'search.focusResults': { context: 'search', description: 'Go to the results', hint: 'results' },
  'search.openInEditor': {
    context: 'searchResults',
    description: 'Open the cited file at its line in $EDITOR',
    hint: 'open in $EDITOR',
  },
  'search.editQuery': { context: 'searchResults', description: 'Edit the query', hint: 'query' },
  'search.cycleMode': {
    context: 'searchResults',
    description: 'Cycle hybrid / vector / lexical search',
    hint: 'mode',
  },
} as const satisfies Record<string, { context: ContextName; description: string; hint: string }>;

export type ActionName = keyof typeof ACTIONS;
export const ACTION_NAMES = Object.keys(ACTIONS) as ActionName[];
export const isAction = (s: string): s is ActionName => Object.hasOwn(ACTIONS, s);

/**
 * Which contexts are consulted together, most specific first (the first match wins). Keymap
 * validation checks that no key means two things within one chain.
 */
export const CHAINS: Record<string, ContextName[]> = {
  stores: ['stores', 'list', 'panes', 'global'],
  sources: ['sources', 'list', 'panes', 'global'],
  runs: ['runs', 'list', 'panes', 'global'],
  form: ['form', 'global'],
  assistant: ['assistant', 'list', 'global'],
  browser: ['browser', 'list', 'global'],
  scan: ['scan', 'global'],
  review: ['review', 'list', 'global'],
  summary: ['summary', 'global'],
  confirm: ['confirm', 'global'],
  search: ['search', 'global'],
  searchResults: ['searchResults', 'list', 'global'],
  help: ['help', 'list', 'global'],
};
