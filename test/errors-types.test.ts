import test from 'ava';
import { createError, isKorttyError } from '../src/errors.js';

// Error details are typed per code: tsc (which builds the tests) rejects a misspelt or missing
// detail, so a message can never print "undefined" for it. The lines marked @ts-expect-error
// fail the build if that check ever stops working.

test('each error code takes exactly the details its message uses', (t) => {
  const ok = createError('SOURCE_UNKNOWN', { id: 's3', store: 'notes' });
  t.is(ok.message, 'no source s3 in store "notes"');
  // @ts-expect-error: a misspelt detail does not compile
  createError('SOURCE_UNKNOWN', { id: 's3', stroe: 'notes' });
  // @ts-expect-error: a missing detail does not compile
  createError('FILE_INVALID', { path: '/x', kind: 'keymap', field: 'a', expected: 'b' });
  // @ts-expect-error: a code with required details cannot be raised without them
  createError('STORE_NOT_FOUND');
  // @ts-expect-error: a detail of the wrong type does not compile
  createError('CHAT_TIMEOUT', { backend: 'llama', ms: '5', phase: 'first token' });
  const err: unknown = createError('STORE_BUSY', { store: 'notes', pid: 42 });
  // Narrowed by code, the details have that code's shape.
  if (isKorttyError(err, 'STORE_BUSY')) t.is(err.details.pid, 42);
  else t.fail('not narrowed');
});
