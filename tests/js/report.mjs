// A tiny check collector: every check is counted, failures are listed, the closing line is
// "N passed, N failed" (the plain line CI reads).
export class Report {
  constructor() { this.passed = 0; this.failures = []; }
  check(ok, what) {
    if (ok) this.passed++;
    else this.failures.push(what);
    return ok;
  }
  close(label) {
    for (const f of this.failures.slice(0, 40)) console.log(`FAILED: ${f}`);
    if (this.failures.length > 40) console.log(`... and ${this.failures.length - 40} more`);
    console.log(`${label}: ${this.passed} passed, ${this.failures.length} failed`);
    return this.failures.length === 0;
  }
}
