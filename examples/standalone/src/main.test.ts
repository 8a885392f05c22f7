import { expect, it } from 'vitest';
import { main } from './main';

it('runs the README example: a success, invalid arguments, and a veto', async () => {
  const lines = await main();
  expect(lines[0]).toBe('schemas ["add","delete_file"]');
  expect(lines[1]).toBe('c1 ok 3');
  expect(lines[2]).toMatch(/^c2 INVALID_ARGS Error: .*"b".*number/);
  expect(lines[3]).toBe('c3 DENIED Error: delete_file is destructive; denied');
});
