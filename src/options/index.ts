/**
 * The one validator of options: rules for values, the check of an options object (unknown
 * keys refused with the nearest known name) and the timer bound. It sits at the bottom of the
 * house (it imports only `errors.ts`), so every entry of the package takes its checks from here.
 */
export { checkKnownKeys, checkOptions, unknownOption, type OptionRules } from "./check-options.js";
export { nearestName } from "./nearest-name.js";
export {
  MAX_TIMER_MS,
  anyValue,
  arrayRule,
  booleanRule,
  functionRule,
  integerRule,
  isWellFormed,
  millisecondsRule,
  numberRule,
  objectRule,
  oneOfRule,
  rule,
  signalRule,
  textRule,
  TOOL_NAME_RULE,
  type OptionRule,
  type RangeOptions,
  type TextOptions,
} from "./rules.js";
