namespace EtwSerializerProfiler.Common;

/// <summary>The disk where a recording goes is full (or too full to start): one line, exit code <see cref="ExitCodes.DiskFull"/>.</summary>
public sealed class DiskFullException(string message) : Exception(message);
