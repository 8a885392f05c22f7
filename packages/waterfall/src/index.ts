export {
  type ChainEntry,
  createWaterfall,
  type Next,
  runChain,
  type Terminal,
  type UseOptions,
  type Waterfall,
  WaterfallError,
  type WaterfallListener,
  type WaterfallMisuse,
} from './waterfall';
