'use client';
import { useEffect, useRef, useState } from 'react';

/**
 * Requests per second from two successive samples of a monotonic counter (the routers' per-function
 * `requests`, summed over replicas). A drop means a router restarted: no rate until the next pair.
 */
export function useRequestRate(requests: number | undefined, sampledAt: number): number | null {
  const prev = useRef<{ requests: number; at: number } | undefined>(undefined);
  const [rate, setRate] = useState<number | null>(null);
  useEffect(() => {
    if (requests === undefined || !sampledAt) return;
    const p = prev.current;
    if (p && sampledAt > p.at) setRate(requests >= p.requests ? (requests - p.requests) / ((sampledAt - p.at) / 1000) : null);
    if (!p || sampledAt > p.at) prev.current = { requests, at: sampledAt };
  }, [requests, sampledAt]);
  return rate;
}
