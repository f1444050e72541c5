using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Configuration;

/// <summary>
/// `--appcontext Name=true|false`: AppContext switches set at startup. They exist because feature switches such as
/// RuntimeFeature.IsDynamicCodeSupported cannot be set by environment variables (only runtimeconfig.json or code),
/// and they are how one binary is made to run the same serializers with emitted code or with plain reflection.
/// </summary>
public static class AppContextSwitches
{
    /// <summary>
    /// Read once by CoreLib into RuntimeFeature.IsDynamicCodeSupported; System.Text.Json, DataContractSerializer,
    /// XmlSerializer, System.Linq.Expressions and Reflection.Emit consult that property to choose emit vs reflection.
    /// </summary>
    public const string DynamicCodeSupported = "System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported";

    /// <summary>
    /// Sets the switches. Must run before any serializer is used: libraries cache what they read. Returns an error
    /// when a switch provably did not take effect (the value was cached before this call), since the measurement
    /// would then silently be of the other configuration.
    /// </summary>
    public static string? Apply(IReadOnlyList<KeyValuePair<string, bool>> switches)
    {
        foreach (var (name, value) in switches) AppContext.SetSwitch(name, value);
        foreach (var (name, value) in switches)
        {
            if (name == DynamicCodeSupported && RuntimeFeature.IsDynamicCodeSupported != value)
                return $"--appcontext {name}={value}: RuntimeFeature.IsDynamicCodeSupported is already {RuntimeFeature.IsDynamicCodeSupported} (read before the switch was set)";
        }
        return null;
    }
}
