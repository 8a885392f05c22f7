/** Where a run's output goes until it is full, then how much was dropped. */
export class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.kept;
    const part = room <= 0 ? undefined : chunk.length <= room ? chunk : chunk.subarray(0, room);
    if (part) {
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += chunk.length - (part?.length ?? 0);
  }
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped === 0
      ? text
      : `${text}\n[sandbox: output truncated, ${this.dropped} bytes past maxOutputBytes dropped]\n`;
  }
}
