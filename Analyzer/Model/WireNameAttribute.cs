namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// The name an enum member is written as in every output (text, CSV, JSON, HTML). Kept on the member so that a new
/// member cannot be written without one and no format can spell it differently (<see cref="WireNames"/>).
/// </summary>
[AttributeUsage(AttributeTargets.Field, AllowMultiple = false)]
internal sealed class WireNameAttribute(string name) : Attribute
{
    public string Name { get; } = name;
}
