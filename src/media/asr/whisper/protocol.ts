// Messages between the API process and a whisper.cpp child process (over the fork IPC channel).

/** One recognition: raw 32-bit float PCM, 16 kHz mono, in a file the child reads. */
export interface RunMessage {
  type: 'run';
  id: number;
  pcmFile: string;
  /** A whisper language code to decode in; null: detect it (multilingual models). */
  language: string | null;
  threads: number;
}

export type ToChild = RunMessage;

export interface WhisperSegment {
  text: string;
  startMs: number;
  endMs: number;
}

export type FromChild =
  /** The model is loaded; runs may be sent. */
  | { type: 'ready'; multilingual: boolean }
  /** The model could not be loaded (the child exits after saying so). */
  | { type: 'load_failed'; message: string }
  | { type: 'done'; id: number; segments: WhisperSegment[]; language: string | null }
  | { type: 'failed'; id: number; message: string };
