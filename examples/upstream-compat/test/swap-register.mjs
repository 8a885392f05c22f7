import { register } from 'node:module';

register('./swap-hooks.mjs', import.meta.url);
