import { describe, expect, it } from 'vitest';
import { defineRegistrySuite, outcomeOf, scenarios } from './behaviour-suite';
import { cordisHost, standaloneHost } from './hosts';

defineRegistrySuite('the standalone registry', standaloneHost);
defineRegistrySuite('the cordis service (ctx.on)', cordisHost('event'));
defineRegistrySuite('the cordis service (ctx.tools.use)', cordisHost('use'));

describe('one suite, two hosts', () => {
  for (const name of Object.keys(scenarios)) {
    it(`gives identical results: ${name}`, async () => {
      const standalone = await outcomeOf(standaloneHost, name);
      expect(await outcomeOf(cordisHost('event'), name)).toEqual(standalone);
      expect(await outcomeOf(cordisHost('use'), name)).toEqual(standalone);
    });
  }
});
