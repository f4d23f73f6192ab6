// The one name of each platform inside the code: its folder's name, its registry key (platforms.ts),
// its upstream and cookie names (UNFURL_UPSTREAM_<NAME>, UNFURL_COOKIES_<NAME>). Answers that know a
// platform by another name (`twitter`, `file`) map it where they are shaped: WIRE_PLATFORM_NAMES in
// post-metadata.ts.
export type PlatformName = 'youtube' | 'tiktok' | 'instagram' | 'x' | 'facebook' | 'direct';
