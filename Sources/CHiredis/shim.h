// hiredis from Debian's libhiredis-dev, for SluiceCacheRedis's RedisCacheStore. Only the blocking,
// non-variadic calls are used (redisConnectWithTimeout, redisSetTimeout, redisCommandArgv).
#include <hiredis/hiredis.h>
