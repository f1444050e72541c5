namespace EtwSerializerProfiler.Common;

/// <summary>A problem the user can fix (bad option, missing file). Printed as one line; exit code 2.</summary>
public sealed class UsageException(string message) : Exception(message);

/// <summary>Input that cannot be analyzed (wrong format, corrupt file). Printed as one line; exit code 3.</summary>
public sealed class BadInputException(string message, Exception? inner = null) : Exception(message, inner);
