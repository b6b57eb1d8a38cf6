// memcity's instanced city: one draw for the ground, every district slab and every building.
// Each instance is a box given by its center, size, color and flags; the unit cube is shared.

struct View {
    clip_from_world: mat4x4<f32>,
    // xyz: camera position; w: unused.
    camera: vec4<f32>,
};

@group(0) @binding(0) var<uniform> view: View;

struct Vertex {
    @location(0) position: vec3<f32>,   // unit cube, -0.5..0.5
    @location(1) normal: vec3<f32>,
    @location(2) center: vec4<f32>,     // xyz: box center; w: flags (1 selected, 2 hovered)
    @location(3) size: vec4<f32>,       // xyz: box size
    @location(4) color: vec4<f32>,      // linear rgb + opacity
};

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) height01: f32,
    @location(3) @interpolate(flat) flags: f32,
    @location(4) world: vec3<f32>,
};

@vertex
fn vertex(v: Vertex) -> Varyings {
    let world = v.center.xyz + v.position * v.size.xyz;
    var out: Varyings;
    out.clip = view.clip_from_world * vec4<f32>(world, 1.0);
    out.color = v.color;
    out.normal = v.normal;
    out.height01 = v.position.y + 0.5;
    out.flags = v.center.w;
    out.world = world;
    return out;
}

const SUN: vec3<f32> = vec3<f32>(0.42, 0.82, 0.38);
const SELECTED: vec3<f32> = vec3<f32>(0.1, 0.45, 1.0);

@fragment
fn fragment(in: Varyings) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    // Sun + sky light, with a cheap ambient-occlusion darkening towards each box's foot.
    let diffuse = max(dot(n, normalize(SUN)), 0.0);
    let sky = 0.5 + 0.5 * n.y;
    let occlusion = mix(0.55, 1.0, clamp(in.height01 * 1.6, 0.0, 1.0));
    var rgb = in.color.rgb * (0.30 * sky + 0.75 * diffuse) * occlusion;
    var alpha = in.color.a;
    let selected = (u32(in.flags + 0.5) & 1u) != 0u;
    let hovered = (u32(in.flags + 0.5) & 2u) != 0u;
    if selected {
        rgb = mix(rgb, SELECTED, 0.7);
        alpha = max(alpha, 0.9);
    } else if hovered {
        rgb = rgb * 1.35 + vec3<f32>(0.05);
    }
    return vec4<f32>(rgb, alpha);
}
