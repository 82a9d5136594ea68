// Loaded with NODE_OPTIONS=--import: this process's clock reads one hour ahead (Date.now and new Date()),
// as on a host whose clock is off, while the database's clock stays right. Dates given a value are untouched.
const AHEAD_MS = 3_600_000;
const RealDate = globalThis.Date;

class HourAheadDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + AHEAD_MS);
    else super(...args);
  }

  static now() {
    return RealDate.now() + AHEAD_MS;
  }
}

globalThis.Date = HourAheadDate;
