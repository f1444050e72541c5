using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>
/// Provider names to GUIDs: ETW tools (tracelog, WPR, WPA regions) take GUIDs, and an EventSource has no registered
/// manifest to look its name up in, so its GUID is computed the way EventSource computes it.
/// </summary>
public static class ProviderGuids
{
    public static readonly Guid Rundown = new("a669021c-c450-4609-a035-5af59af4df18");

    public static Guid For(string providerName)
    {
        if (Guid.TryParse(providerName, out var literal)) return literal;
        if (providerName.Equals(KeywordNames.ClrProvider, StringComparison.OrdinalIgnoreCase)) return KeywordNames.ClrProviderGuid;
        if (providerName.Equals(KeywordNames.RundownProvider, StringComparison.OrdinalIgnoreCase)) return Rundown;
        if (providerName.Equals(RunEvents.ProviderName, StringComparison.OrdinalIgnoreCase)) return RunEvents.ProviderGuid;
        return EventSourceGuid.FromName(providerName);
    }
}
