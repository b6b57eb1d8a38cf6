# Several clients push the same message at once; prints each reply (or how it closed).
# Usage: python3 push_at_once.py ws://ADDR MESSAGE.json CLIENTS (needs PyPI websockets)
import asyncio, sys, time, websockets
async def one(url, data, i):
    t = time.time()
    try:
        async with websockets.connect(url, max_size=None, open_timeout=60, close_timeout=10) as ws:
            await ws.send(data)
            reply = await ws.recv()
            return f"client {i}: {time.time()-t:.1f}s {reply[:160]}"
    except Exception as e:
        return f"client {i}: {time.time()-t:.1f}s closed: {e}"
async def main():
    data = open(sys.argv[2]).read()
    for line in await asyncio.gather(*(one(sys.argv[1], data, i) for i in range(int(sys.argv[3])))):
        print(line)
asyncio.run(main())
